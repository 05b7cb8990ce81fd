// The 1-D convolution of NAM's real-time models (models/nam) on channel-major rows, as a
// streaming model runs it: the caller keeps the input's history in the columns before the
// block, so the convolution reads only real frames (no padding) and a block's output is
// exactly what one long convolution over the whole stream gives. A thin call into the active
// backend's conv1d kernel (kernels/conv1d.h): no allocation, no copy.
#pragma once

#include <cstdint>

namespace forge::infer {

// A convolution's weights in PyTorch's Conv1d layout, [out][in / groups][kernel_size]
// contiguous, and its optional bias [out] (nullptr: none).
struct Conv1dWeights {
    const float* weight;
    const float* bias;
    std::int64_t in_channels;
    std::int64_t out_channels;
    std::int64_t kernel_size;
    std::int64_t dilation;
    std::int64_t groups;

    // Frames before the current one that the last output frame reads: (K - 1) · dilation.
    std::int64_t history() const { return (kernel_size - 1) * dilation; }
};

// out[o, t] = bias[o] + Σ_k Σ_c weight[o][c][k] · in[g·C/groups + c, t - (K-1-k)·dilation]
// for t < frames. Row c of the input is at in + c · in_stride, frame 0 of the block at column 0
// and its history at columns -history() .. -1; row o of the output at out + o · out_stride.
// out must not alias in.
void causal_conv1d(const Conv1dWeights& w, const float* in, std::int64_t in_stride, float* out,
                   std::int64_t out_stride, std::int64_t frames) noexcept;

}  // namespace forge::infer
