// The one linear-layer dispatch of the inference front-end, y = x · Wᵀ + b, on raw row-major
// buffers: f32 and f16 weights (the packed GEMM of kernels/matmul.h, cut into the tiles
// core/ops/matmul uses), every GGML block format (quantized activations against the
// register-tiled GEMM or the dot kernel), and Q4_0 / Q8_0 / MXFP4 / Q4_K / Q5_K / Q6_K weights
// interleaved at load.
//
// This is a model's hot loop, so it calls the kernels directly rather than the tensor ops:
// nothing here allocates once the per-thread scratch has grown to size, which keeps the
// decode path free of heap traffic. Work is split over the global thread pool in chunks that
// depend only on the shapes, so results do not depend on the number of threads.
//
// Rows are independent: row i of y depends only on row i of x, never on how many rows share
// the call or where in the batch it sits (the float path always takes the GEMM's tiles, whose
// per-element sums have one fixed order; the quantized kernels give the same bits for one row
// or many). That is what lets the scheduler batch sequences without changing their tokens.
#pragma once

#include "core/infer/interleaved_weights.h"
#include "core/tensor.h"
#include "kernels/quant_gemm_interleaved.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace forge::gguf {
class TensorLoader;
}

namespace forge::infer {

// y = x · Wᵀ (+ b): weight [n_out, n_in] as stored (f32, f16 or a block format with a dot
// kernel), optional f32 bias [n_out].
struct Linear {
    Tensor weight;
    Tensor bias;  // undefined when the layer has none
    // Q4_0 / Q8_0 / MXFP4 / Q4_K / Q5_K / Q6_K weights in the simd build's interleaved layout (what
    // the layer multiplies then); null otherwise.
    std::shared_ptr<const InterleavedWeights> interleaved;
    std::int64_t n_out() const { return weight.size(0); }
    std::int64_t n_in() const { return weight.size(1); }
};

// The layer `prefix`.weight [n_out, n_in] (and `prefix`.bias [n_out], f32, when with_bias) of
// a GGUF, with the interleaved copy where the build multiplies that layout. Nothing reads the
// original again (a tied head's embedding rows come from the copy), so its pages are given
// back: peak memory stays about one copy of the weights. Errors name the tensor.
Linear load_linear(const gguf::TensorLoader& load, const std::string& prefix, std::int64_t n_out, std::int64_t n_in,
                   bool with_bias);

// The scratch memory of linear(), made once so that multiplying never allocates: room for the
// quantized copy of up to `max_rows` activation rows of `max_width` values (block formats
// multiply against Q8_0 / Q8_K activations, as ggml does), and one packing area per thread of
// the pool for the f32/f16 GEMM tiles (the kernels block k at 256, so a whole tile needs at
// most 2^17 floats whatever the shape).
class ActivationScratch {
public:
    static constexpr std::size_t kPackingFloats = std::size_t{1} << 17;

    // max_products: the most layers one pass of linear_rows() multiplies (one per chosen
    // expert and projection in a mixture of experts).
    ActivationScratch(std::int64_t max_rows, std::int64_t max_width, std::int64_t max_products = 4);
    std::span<std::byte> bytes() { return bytes_; }
    // Per activation block, for interleaved weights (empty where the build has none).
    std::span<kernels::ActivationBlockInfo> block_info() { return block_info_; }
    int packing_lanes() const { return packing_lanes_; }
    std::span<float> packing(int lane, std::size_t floats);
    // Where each product of one pass starts in the pass's task list: max_products + 1 entries.
    std::span<std::int64_t> task_starts() { return task_starts_; }

private:
    std::vector<std::byte> bytes_;
    std::vector<kernels::ActivationBlockInfo> block_info_;
    int packing_lanes_ = 1;
    std::vector<float> packing_;
    std::vector<std::int64_t> task_starts_;
};

// y [m, n_out] = x [m, n_in] · Wᵀ (+ b). x and y are contiguous and do not overlap.
void linear(const Linear& layer, std::span<const float> x, std::int64_t m, std::span<float> y,
            ActivationScratch& scratch);

// One layer of a linear_shared_input call and where its output goes.
struct LinearOutput {
    const Linear* layer;
    std::span<float> y;
};

// Several layers over the same x (q, k and v; gate and up), each output as linear() gives
// it. Neighbouring layers that share one block format have x quantized once and all their
// work given to the thread pool in one pass: one synchronization instead of one per layer,
// which matters in decoding (a few hundred layers a token). Any other layer: one linear().
void linear_shared_input(std::span<const LinearOutput> outputs, std::span<const float> x, std::int64_t m,
                         ActivationScratch& scratch);

// One product of a linear_rows call: `layer` over rows [first_row, first_row + rows) of x,
// into y [rows, n_out].
struct LinearRows {
    const Linear* layer;
    std::int64_t first_row, rows;
    std::span<float> y;
};

// Many layers, each over its own run of rows of one x [m, n_in], each output as linear()
// gives it: a mixture of experts, every chosen expert over the rows that chose it. Neighbouring
// products that share one block format and width (up to the scratch's max_products) have x
// quantized once and all their work given to the thread pool in one pass, split over
// (product, strip of weight rows) tasks: decoding one token through 8 experts of 768 rows
// is then one pass for gate and up and one for down, each thread streaming its contiguous
// share of all the experts' rows, instead of two passes per expert.
void linear_rows(std::span<const LinearRows> products, std::span<const float> x, std::int64_t m,
                 ActivationScratch& scratch);

}  // namespace forge::infer
