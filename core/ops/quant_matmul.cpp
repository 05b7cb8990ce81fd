#include "core/ops/quant_matmul.h"

#include "core/quant/block_types.h"
#include "core/quant/quantize.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/quant_dot.h"
#include "kernels/quantize.h"

#include <vector>

namespace forge {

namespace {

// Multiply-adds per task: small enough to spread a 1024 x 1024 matvec over many threads,
// large enough to amortize handing out the task.
constexpr std::int64_t kMacsPerTask = 1 << 15;

// Per-thread activation scratch that only ever grows: after the first call of a given size
// the decode path allocates nothing.
std::span<std::byte> activation_scratch(std::size_t bytes) {
    thread_local std::vector<std::byte> scratch;
    if (scratch.size() < bytes) scratch.resize(bytes);
    return {scratch.data(), bytes};
}

struct Problem {
    std::int64_t m, n, k;
};

Problem validate(const Tensor& x, const Tensor& w) {
    check(x.defined() && w.defined(), "quant_matmul: undefined operand");
    check(x.dtype() == DType::F32, "quant_matmul: x must be f32, not {}", dtype_name(x.dtype()));
    check(w.rank() == 2, "quant_matmul: weights must be [n, k], got {}", w.shape().to_string());
    check(quant::has_dot_kernel(w.dtype()), "quant_matmul: no quantized kernel for {} weights", dtype_name(w.dtype()));
    check(w.is_contiguous(), "quant_matmul: weights must be contiguous rows of blocks");
    check(x.rank() >= 1 && x.size(-1) == w.size(1), "quant_matmul: x {} does not match weights {}",
          x.shape().to_string(), w.shape().to_string());
    const std::int64_t k = w.size(1);
    return {k == 0 ? 0 : x.numel() / k, w.size(0), k};
}

template <typename Block>
void run(const Problem& p, const float* x, const std::byte* w, float* y) {
    using Act = quant::ActivationBlock<Block>;
    const auto k_blocks = static_cast<std::size_t>(p.k / Block::kSize);
    const auto a_blocks = static_cast<std::size_t>(p.k / Act::kSize);
    auto scratch = activation_scratch(static_cast<std::size_t>(p.m) * a_blocks * sizeof(Act));
    Act* act = reinterpret_cast<Act*>(scratch.data());
    auto& pool = ThreadPool::global();
    pool.parallel_for(p.m, std::max<std::int64_t>(1, kMacsPerTask / std::max<std::int64_t>(1, p.k)),
                      [&](std::int64_t begin, std::int64_t end) {
                          for (std::int64_t i = begin; i < end; ++i) {
                              kernels::scalar::quantize(std::span(x + i * p.k, static_cast<std::size_t>(p.k)),
                                                        std::span(act + static_cast<std::size_t>(i) * a_blocks, a_blocks));
                          }
                      });
    const Block* weights = reinterpret_cast<const Block*>(w);
    const std::int64_t grain = std::max<std::int64_t>(1, kMacsPerTask / std::max<std::int64_t>(1, p.k * p.m));
    pool.parallel_for(p.n, grain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            const std::span<const Block> row(weights + static_cast<std::size_t>(r) * k_blocks, k_blocks);
            for (std::int64_t i = 0; i < p.m; ++i) {
                const std::span<const Act> a(act + static_cast<std::size_t>(i) * a_blocks, a_blocks);
                y[i * p.n + r] = kernels::active::dot(row, a);
            }
        }
    });
}

}  // namespace

void quant_matmul_into(const Tensor& x, const Tensor& w, const Tensor& y) {
    const Problem p = validate(x, w);
    check(y.defined() && y.dtype() == DType::F32 && y.is_contiguous() && y.numel() == p.m * p.n &&
              y.size(-1) == p.n,
          "quant_matmul: output must be a contiguous f32 [..., {}] tensor with {} rows", p.n, p.m);
    const Tensor xc = x.contiguous();
    quant::visit_block_type(w.dtype(), [&](auto tag) {
        run<typename decltype(tag)::type>(p, xc.data<float>(), w.raw_data(), y.data<float>());
    });
}

Tensor quant_matmul(const Tensor& x, const Tensor& w) {
    const Problem p = validate(x, w);
    Shape shape = x.shape();
    shape[shape.rank() - 1] = p.n;
    Tensor y = Tensor::empty(shape, DType::F32);
    quant_matmul_into(x, w, y);
    return y;
}

}  // namespace forge
