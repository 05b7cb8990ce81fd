// The linear layers of a model, y = x · Wᵀ + b, on raw row-major buffers.
//
// This is the model's hot loop, so it calls the kernels directly rather than the tensor ops:
// nothing here allocates once the per-thread scratch has grown to size, which keeps the
// decode path (one row of x per token) free of heap traffic. Work is split over the global
// thread pool in chunks that depend only on the shapes, so results do not depend on the
// number of threads.
#pragma once

#include "kernels/quant_gemm_interleaved.h"
#include "models/llm/weights.h"

#include <cstddef>
#include <span>
#include <vector>

namespace forge::llm {

// Room for the quantized copy of up to `max_rows` activation rows of `max_width` values
// (block formats multiply against Q8_0 / Q8_K activations, as ggml does).
class ActivationScratch {
public:
    ActivationScratch(std::int64_t max_rows, std::int64_t max_width);
    std::span<std::byte> bytes() { return bytes_; }
    // Per activation block, for interleaved weights (empty where the build has none).
    std::span<kernels::ActivationBlockInfo> block_info() { return block_info_; }

private:
    std::vector<std::byte> bytes_;
    std::vector<kernels::ActivationBlockInfo> block_info_;
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

}  // namespace forge::llm
