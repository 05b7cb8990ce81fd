#include "core/infer/linear.h"

#include "core/error.h"
#include "core/gguf/tensor_loader.h"
#include "core/ops/matmul_tiling.h"
#include "core/quant/block_types.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/matmul.h"
#include "kernels/quant_dot.h"
#include "kernels/quant_gemm.h"
#include "kernels/quant_gemm_interleaved.h"
#include "kernels/quant_gemm_interleaved_k.h"
#include "kernels/quantize.h"

#include <algorithm>
#include <array>
#include <type_traits>

namespace forge::infer {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// f32 or f16 weights: the packed GEMM kernel over the tiles of core/ops/matmul_tiling.h, always
// as GEMM tiles (matmul_rows), so a row's bits do not depend on how many rows share the call.
// Each of the scratch's lanes packs into its own area and takes every lanes-th tile.
template <typename Element>
void float_linear(const Element* w, std::int64_t n, std::int64_t k, const float* x, std::int64_t m, float* y,
                  ActivationScratch& scratch) {
    const MatmulTiling tiling = matmul_tiling(m, k, false);
    const std::int64_t col_tiles = tiling.col_tiles(n), tiles = tiling.row_tiles(m) * col_tiles;
    const int lanes = static_cast<int>(std::min<std::int64_t>(scratch.packing_lanes(), tiles));
    ThreadPool::global().run(lanes, [&](std::int64_t lane) {
        for (std::int64_t task = lane; task < tiles; task += lanes) {
            const std::int64_t i0 = task / col_tiles * tiling.rows, j0 = task % col_tiles * tiling.cols;
            const std::int64_t rows = std::min(tiling.rows, m - i0), cols = std::min(tiling.cols, n - j0);
            const kernels::MatmulBlock<Element> block{
                rows, cols, k, {x + i0 * k, k, 1}, {w + j0 * k, 1, k}, {y + i0 * n + j0, n}};
            kernels::active::matmul_rows(
                block, scratch.packing(static_cast<int>(lane), kernels::active::matmul_scratch_floats(rows, cols, k)));
        }
    });
}

// The formats with a register-tiled GEMM kernel (kernels/quant_gemm.h); the others take one
// dot product per output.
template <typename Block>
constexpr bool kHasGemm = requires(const kernels::QuantGemm<Block, quant::ActivationBlock<Block>>& g) {
    kernels::active::gemm(g);
};

// The formats whose weights load interleaved (kernels/quant_gemm_interleaved.h and, for the
// K-quants, kernels/quant_gemm_interleaved_k.h), where the build has those kernels.
template <typename Block>
constexpr bool kInterleavable = kernels::kHasInterleavedGemmFor<Block> && requires(const kernels::InterleavedGemm<Block>& g) {
    kernels::simd::gemm(g);
};
// The 32-element ones also take per-block activation info; the K-quants read Q8_K's bsums.
template <typename Block>
constexpr bool kNeedsActivationInfo = kInterleavable<Block> && Block::kSize == 32;

// Each row of x quantized once to the activation format of the weights (Q8_0 or Q8_K).
template <typename Act>
Act* quantize_rows(const float* x, std::int64_t m, std::int64_t k, std::span<std::byte> scratch) {
    const auto a_blocks = static_cast<std::size_t>(k / Act::kSize);
    check(scratch.size() >= static_cast<std::size_t>(m) * a_blocks * sizeof(Act), "linear: activation scratch too small");
    Act* act = reinterpret_cast<Act*>(scratch.data());
    ThreadPool::global().parallel_for(m, 4, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            kernels::active::quantize(std::span(x + i * k, static_cast<std::size_t>(k)),
                                      std::span(act + static_cast<std::size_t>(i) * a_blocks, a_blocks));
        }
    });
    return act;
}

// What the interleaved kernel needs of each activation block besides its quants, once per call.
template <typename Block>
const kernels::ActivationBlockInfo* activation_info(const kernels::BlockQ8_0* act, std::int64_t m, std::int64_t a_blocks,
                                                    std::span<kernels::ActivationBlockInfo> info) {
    check(info.size() >= static_cast<std::size_t>(m * a_blocks), "linear: activation info scratch too small");
    ThreadPool::global().parallel_for(m, 4, [&](std::int64_t begin, std::int64_t end) {
        kernels::simd::activation_info(act + begin * a_blocks, (end - begin) * a_blocks, kernels::kInterleavedOffset<Block>,
                                       info.data() + begin * a_blocks);
    });
    return info.data();
}

// A call of at most one register tile of activation rows (decoding one or a few sequences)
// reads each weight once: it streams the weights, in strips of about 32 KiB, one contiguous run
// of them per thread.
bool streams_weights(std::int64_t m) { return m <= kernels::kInterleavedTileRows; }

// Block-format weights against quantized activations, as tasks: a task is a strip of weight
// rows against a panel of activation rows, small enough to stay in cache; within it the
// GEMM kernel tiles registers (or, for formats without one, a dot per output). Panels of 64
// rows and strips of 48 weight rows are whole tiles (4 x 4 or 4 x 3). Interleaved weights
// take strips of whole 16-row groups (decoding, up to kInterleavedTileRows rows: about 32 KiB).
template <typename Block>
struct QuantizedProduct {
    using Act = quant::ActivationBlock<Block>;
    const Block* w;
    std::int64_t n, k;
    const Act* act;
    std::int64_t m;
    float* y;
    const InterleavedWeights* packed = nullptr;
    const kernels::ActivationBlockInfo* info = nullptr;  // per block of act, where packed

    std::int64_t panel() const { return std::min<std::int64_t>(m, 64); }
    std::int64_t strip() const {
        if (packed != nullptr) {
            const auto groups = streams_weights(m) ? (std::size_t{1} << 15) / packed->group_bytes() : std::size_t{4};
            return std::max<std::int64_t>(1, static_cast<std::int64_t>(groups)) * kernels::kInterleave;
        }
        return m == 1 ? std::max<std::int64_t>(1, (std::int64_t{1} << 15) / k) : 48;
    }
    std::int64_t panels() const { return ceil_div(m, panel()); }
    std::int64_t tasks() const { return m == 0 ? 0 : panels() * ceil_div(n, strip()); }

    void run(std::int64_t task) const {
        const std::int64_t i0 = task % panels() * panel(), r0 = task / panels() * strip();
        const std::int64_t i1 = std::min(m, i0 + panel()), r1 = std::min(n, r0 + strip());
        const std::int64_t w_blocks = k / Block::kSize, a_blocks = k / Act::kSize;
        if constexpr (kInterleavable<Block>) {
            if (packed != nullptr) {
                return kernels::simd::gemm(kernels::InterleavedGemm<Block>{
                    i1 - i0, r1 - r0, w_blocks, act + i0 * a_blocks, info == nullptr ? nullptr : info + i0 * a_blocks, a_blocks,
                    packed->group(r0 / kernels::kInterleave), y + i0 * n + r0, n});
            }
        }
        // One activation row (decoding) streams each weight row start to end with the dot
        // kernel: the tile's interleaved reads of several short rows defeat the hardware
        // prefetcher there (the GEMM gives the same bits anyway).
        if constexpr (kHasGemm<Block>) {
            if (m == 1) return dots(r0, r1, i0, i1);
            kernels::active::gemm(kernels::QuantGemm<Block, Act>{
                i1 - i0, r1 - r0, w_blocks, act + i0 * a_blocks, a_blocks, w + r0 * w_blocks, w_blocks, y + i0 * n + r0, n});
        } else {
            dots(r0, r1, i0, i1);
        }
    }

    void dots(std::int64_t r0, std::int64_t r1, std::int64_t i0, std::int64_t i1) const {
        const auto wb = static_cast<std::size_t>(k / Block::kSize), ab = static_cast<std::size_t>(k / Act::kSize);
        for (std::int64_t r = r0; r < r1; ++r) {
            const std::span<const Block> row(w + static_cast<std::size_t>(r) * wb, wb);
            for (std::int64_t i = i0; i < i1; ++i) {
                y[i * n + r] = kernels::active::dot(row, std::span<const Act>(act + static_cast<std::size_t>(i) * ab, ab));
            }
        }
    }
};

// Up to kMaxShared layers of one block format over the same x (linear, linear_shared_input).
constexpr std::size_t kMaxShared = 4;

// Layers of one block format and width, each over its own rows of x: one quantization of x
// and one pass of the thread pool over all their tasks.
template <typename Block>
void quantized_linears(std::span<const LinearRows> products, const float* x, std::int64_t m,
                       ActivationScratch& scratch) {
    using Act = quant::ActivationBlock<Block>;
    const std::int64_t k = products[0].layer->n_in(), a_blocks = k / Act::kSize;
    const Act* act = quantize_rows<Act>(x, m, k, scratch.bytes());
    const kernels::ActivationBlockInfo* info = nullptr;
    if constexpr (kNeedsActivationInfo<Block>) {
        if (std::any_of(products.begin(), products.end(), [](const LinearRows& p) { return p.layer->interleaved != nullptr; })) {
            info = activation_info<Block>(act, m, a_blocks, scratch.block_info());
        }
    }
    const auto product = [&](std::size_t i) {
        const LinearRows& p = products[i];
        return QuantizedProduct<Block>{reinterpret_cast<const Block*>(p.layer->weight.raw_data()),
                                       p.layer->n_out(),
                                       k,
                                       act + p.first_row * a_blocks,
                                       p.rows,
                                       p.y.data(),
                                       p.layer->interleaved.get(),
                                       info == nullptr ? nullptr : info + p.first_row * a_blocks};
    };
    const std::span<std::int64_t> first_task = scratch.task_starts().first(products.size() + 1);
    bool streams = false;
    first_task[0] = 0;
    for (std::size_t i = 0; i < products.size(); ++i) {
        first_task[i + 1] = first_task[i] + product(i).tasks();
        streams = streams || streams_weights(products[i].rows);
    }
    const auto run_task = [&](std::int64_t task) {
        const auto i = static_cast<std::size_t>(std::upper_bound(first_task.begin(), first_task.end(), task) - first_task.begin() - 1);
        product(i).run(task - first_task[i]);
    };
    // Decoding reads every weight once, in task order: each thread takes a contiguous run of
    // strips, one stream for the prefetchers (ThreadPool::run_in_runs). Prefill tasks re-read
    // their strips from cache; any order serves them, so a pass of experts with a few rows
    // each and some with more (a prefill step's) goes in runs too.
    if (streams) ThreadPool::global().run_in_runs(first_task.back(), run_task);
    else ThreadPool::global().run(first_task.back(), run_task);
}

void check_buffers(const Linear& layer, std::span<const float> x, std::int64_t m, std::span<const float> y) {
    const std::int64_t n = layer.n_out(), k = layer.n_in();
    check(static_cast<std::int64_t>(x.size()) >= m * k && static_cast<std::int64_t>(y.size()) >= m * n,
          "linear: buffers of {} and {} values cannot hold [{}, {}] -> [{}, {}]", x.size(), y.size(), m, k, m, n);
}

void add_bias(const Tensor& bias, std::int64_t m, std::int64_t n, float* y) {
    const float* b = bias.data<float>();
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) y[i * n + j] += b[j];
    }
}

}  // namespace

ActivationScratch::ActivationScratch(std::int64_t max_rows, std::int64_t max_width, std::int64_t max_products) {
    // Whichever of the two activation formats needs more bytes for a row.
    const std::size_t per_row = std::max(static_cast<std::size_t>(ceil_div(max_width, 32)) * sizeof(kernels::BlockQ8_0),
                                         static_cast<std::size_t>(ceil_div(max_width, 256)) * sizeof(kernels::BlockQ8_K));
    bytes_.resize(static_cast<std::size_t>(max_rows) * per_row);
    if constexpr (kernels::kHasInterleavedNibbleGemm) block_info_.resize(static_cast<std::size_t>(max_rows * ceil_div(max_width, 32)));
    packing_lanes_ = ThreadPool::global().size();
    packing_.resize(static_cast<std::size_t>(packing_lanes_) * kPackingFloats);
    task_starts_.resize(static_cast<std::size_t>(std::max<std::int64_t>(max_products, kMaxShared)) + 1);
}

std::span<float> ActivationScratch::packing(int lane, std::size_t floats) {
    check(floats <= kPackingFloats, "linear: a tile needs {} floats of packing space, more than {}", floats, kPackingFloats);
    return std::span(packing_).subspan(static_cast<std::size_t>(lane) * kPackingFloats, std::max<std::size_t>(floats, 1));
}

void linear(const Linear& layer, std::span<const float> x, std::int64_t m, std::span<float> y,
            ActivationScratch& scratch) {
    check_buffers(layer, x, m, y);
    const std::int64_t n = layer.n_out(), k = layer.n_in();
    const Tensor& w = layer.weight;
    if (w.dtype() == DType::F32) {
        float_linear(w.data<float>(), n, k, x.data(), m, y.data(), scratch);
    } else if (w.dtype() == DType::F16) {
        float_linear(reinterpret_cast<const std::uint16_t*>(w.raw_data()), n, k, x.data(), m, y.data(), scratch);
    } else {
        const LinearRows only{&layer, 0, m, y};
        quant::visit_block_type(w.dtype(), [&](auto tag) {
            quantized_linears<typename decltype(tag)::type>(std::span(&only, 1), x.data(), m, scratch);
        });
    }
    if (layer.bias.defined()) add_bias(layer.bias, m, n, y.data());
}

void linear_shared_input(std::span<const LinearOutput> outputs, std::span<const float> x, std::int64_t m,
                         ActivationScratch& scratch) {
    check(!outputs.empty(), "linear_shared_input: no layers");
    // Runs of neighbouring layers in one block format share a pass: in a Q4_K_M model q and k
    // (Q4_K) share one, v (Q6_K) takes its own, instead of one pass per layer.
    for (std::size_t begin = 0; begin < outputs.size(); begin += kMaxShared) {
        std::array<LinearRows, kMaxShared> products{};
        const std::size_t count = std::min(kMaxShared, outputs.size() - begin);
        for (std::size_t i = 0; i < count; ++i) products[i] = {outputs[begin + i].layer, 0, m, outputs[begin + i].y};
        linear_rows(std::span(products).first(count), x, m, scratch);
    }
}

namespace {

// Whether `next` joins `first`'s pass in linear_rows: one block format (the float formats
// run one layer at a time) and one width.
bool shares_pass(const Linear& first, const Linear& next) {
    return first.weight.dtype() != DType::F32 && first.weight.dtype() != DType::F16 && next.weight.dtype() == first.weight.dtype() &&
           next.n_in() == first.n_in();
}

}  // namespace

void linear_rows(std::span<const LinearRows> products, std::span<const float> x, std::int64_t m,
                 ActivationScratch& scratch) {
    const auto max_pass = scratch.task_starts().size() - 1;
    for (const LinearRows& p : products) {
        check(p.first_row >= 0 && p.rows >= 0 && p.first_row + p.rows <= m, "linear_rows: rows [{}, {}) of {}", p.first_row,
              p.first_row + p.rows, m);
        check(static_cast<std::int64_t>(x.size()) >= m * p.layer->n_in(), "linear_rows: {} values cannot hold [{}, {}]", x.size(), m,
              p.layer->n_in());
        check_buffers(*p.layer, x.subspan(static_cast<std::size_t>(p.first_row * p.layer->n_in())), p.rows, p.y);
    }
    for (std::size_t begin = 0, end = 0; begin < products.size(); begin = end) {
        end = begin + 1;
        while (end < products.size() && end - begin < max_pass && shares_pass(*products[begin].layer, *products[end].layer)) ++end;
        const auto run = products.subspan(begin, end - begin);
        if (run.size() == 1) {
            const LinearRows& p = run[0];
            const auto k = static_cast<std::size_t>(p.layer->n_in());
            linear(*p.layer, x.subspan(static_cast<std::size_t>(p.first_row) * k, static_cast<std::size_t>(p.rows) * k), p.rows, p.y,
                   scratch);
            continue;
        }
        quant::visit_block_type(run[0].layer->weight.dtype(), [&](auto tag) {
            using Block = typename decltype(tag)::type;
            quantized_linears<Block>(run, x.data(), m, scratch);
        });
        for (const LinearRows& p : run) {
            if (p.layer->bias.defined()) add_bias(p.layer->bias, p.rows, p.layer->n_out(), p.y.data());
        }
    }
}

Linear load_linear(const gguf::TensorLoader& load, const std::string& prefix, std::int64_t n_out, std::int64_t n_in,
                   bool with_bias) {
    Linear layer{load.matrix(prefix + ".weight", n_out, n_in), Tensor{}, nullptr};
    layer.interleaved = InterleavedWeights::for_file(layer.weight, load.file());
    if (with_bias) layer.bias = load.vector_f32(prefix + ".bias", n_out);
    return layer;
}

}  // namespace forge::infer
