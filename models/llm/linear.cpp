#include "models/llm/linear.h"

#include "core/error.h"
#include "core/quant/block_types.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/matmul.h"
#include "kernels/quant_dot.h"
#include "kernels/quantize.h"

#include <algorithm>

namespace forge::llm {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Per-thread packing space for the f32/f16 kernels. The first use takes room for any
// matrix-vector strip (2^19 weights + k), so which thread happens to run which strip never
// makes decoding allocate; prefill tiles may grow it once more.
std::span<float> matmul_scratch(std::size_t floats) {
    constexpr std::size_t kDecodeFloats = std::size_t{1} << 20;
    thread_local std::vector<float> scratch;
    if (scratch.size() < floats) scratch.resize(std::max(floats, kDecodeFloats));
    return {scratch.data(), std::max<std::size_t>(floats, 1)};
}

// f32 or f16 weights: the packed GEMM kernel over tiles of y (matrix-vector: column strips).
template <typename Element>
void float_linear(const Element* w, std::int64_t n, std::int64_t k, const float* x, std::int64_t m, float* y) {
    // Tiles are multiples of every backend's micro-tile; strips hold ~2^19 weights.
    const std::int64_t tile_rows = m == 1 ? 1 : 192;
    const std::int64_t tile_cols = m == 1 ? std::max<std::int64_t>(64, (std::int64_t{1} << 19) / k / 64 * 64) : 256;
    const std::int64_t row_tiles = ceil_div(m, tile_rows), col_tiles = ceil_div(n, tile_cols);
    ThreadPool::global().run(row_tiles * col_tiles, [&](std::int64_t task) {
        const std::int64_t i0 = task / col_tiles * tile_rows, j0 = task % col_tiles * tile_cols;
        const std::int64_t rows = std::min(tile_rows, m - i0), cols = std::min(tile_cols, n - j0);
        const kernels::MatmulBlock<Element> block{
            rows, cols, k, {x + i0 * k, k, 1}, {w + j0 * k, 1, k}, {y + i0 * n + j0, n}};
        kernels::active::matmul(block, matmul_scratch(kernels::active::matmul_scratch_floats(rows, cols, k)));
    });
}

// Block-format weights: quantize each row of x once, then integer dot products. A task is a
// strip of weight rows against a panel of activation rows, small enough to stay in cache.
template <typename Block>
void quantized_linear(const Block* w, std::int64_t n, std::int64_t k, const float* x, std::int64_t m, float* y,
                      std::span<std::byte> scratch) {
    using Act = quant::ActivationBlock<Block>;
    const auto w_blocks = static_cast<std::size_t>(k / Block::kSize);
    const auto a_blocks = static_cast<std::size_t>(k / Act::kSize);
    check(scratch.size() >= static_cast<std::size_t>(m) * a_blocks * sizeof(Act), "linear: activation scratch too small");
    Act* act = reinterpret_cast<Act*>(scratch.data());
    auto& pool = ThreadPool::global();
    pool.parallel_for(m, 4, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            kernels::scalar::quantize(std::span(x + i * k, static_cast<std::size_t>(k)),
                                      std::span(act + static_cast<std::size_t>(i) * a_blocks, a_blocks));
        }
    });
    const std::int64_t panel = std::min<std::int64_t>(m, 64);
    const std::int64_t strip = m == 1 ? std::max<std::int64_t>(1, (std::int64_t{1} << 15) / k) : 16;
    const std::int64_t panels = ceil_div(m, panel), strips = ceil_div(n, strip);
    pool.run(panels * strips, [&](std::int64_t task) {
        const std::int64_t i0 = task % panels * panel, r0 = task / panels * strip;
        const std::int64_t i1 = std::min(m, i0 + panel), r1 = std::min(n, r0 + strip);
        for (std::int64_t r = r0; r < r1; ++r) {
            const std::span<const Block> row(w + static_cast<std::size_t>(r) * w_blocks, w_blocks);
            for (std::int64_t i = i0; i < i1; ++i) {
                y[i * n + r] = kernels::active::dot(row, std::span<const Act>(act + static_cast<std::size_t>(i) * a_blocks, a_blocks));
            }
        }
    });
}

void add_bias(const Tensor& bias, std::int64_t m, std::int64_t n, float* y) {
    const float* b = bias.data<float>();
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) y[i * n + j] += b[j];
    }
}

}  // namespace

ActivationScratch::ActivationScratch(std::int64_t max_rows, std::int64_t max_width) {
    // Whichever of the two activation formats needs more bytes for a row.
    const std::size_t per_row = std::max(static_cast<std::size_t>(ceil_div(max_width, 32)) * sizeof(kernels::BlockQ8_0),
                                         static_cast<std::size_t>(ceil_div(max_width, 256)) * sizeof(kernels::BlockQ8_K));
    bytes_.resize(static_cast<std::size_t>(max_rows) * per_row);
}

void linear(const Linear& layer, std::span<const float> x, std::int64_t m, std::span<float> y,
            ActivationScratch& scratch) {
    const std::int64_t n = layer.n_out(), k = layer.n_in();
    check(static_cast<std::int64_t>(x.size()) >= m * k && static_cast<std::int64_t>(y.size()) >= m * n,
          "linear: buffers of {} and {} values cannot hold [{}, {}] -> [{}, {}]", x.size(), y.size(), m, k, m, n);
    const Tensor& w = layer.weight;
    if (w.dtype() == DType::F32) {
        float_linear(w.data<float>(), n, k, x.data(), m, y.data());
    } else if (w.dtype() == DType::F16) {
        float_linear(reinterpret_cast<const std::uint16_t*>(w.raw_data()), n, k, x.data(), m, y.data());
    } else {
        quant::visit_block_type(w.dtype(), [&](auto tag) {
            using Block = typename decltype(tag)::type;
            quantized_linear(reinterpret_cast<const Block*>(w.raw_data()), n, k, x.data(), m, y.data(), scratch.bytes());
        });
    }
    if (layer.bias.defined()) add_bias(layer.bias, m, n, y.data());
}

}  // namespace forge::llm
