// The 1-D convolution of NAM's real-time models (models/nam) on channel-major rows, as a
// streaming model runs it: the caller keeps the input's history in the columns before the
// block, so the convolution reads only real frames (no padding) and a block's output is
// exactly what one long convolution over the whole stream gives. An inline call into the
// active backend's conv1d kernel (kernels/conv1d.h): no allocation, no copy.
#pragma once

#include "kernels/backend.h"
#include "kernels/conv1d.h"

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
inline void causal_conv1d(const Conv1dWeights& w, const float* in, std::int64_t in_stride, float* out,
                          std::int64_t out_stride, std::int64_t frames) noexcept {
    const std::int64_t history = w.history();
    kernels::Conv1d call{};
    call.input = in - history;  // the kernel reads a "valid" convolution from the history on
    call.input_row_stride = in_stride;
    call.in_channels = w.in_channels;
    call.in_length = history + frames;
    call.weight = w.weight;
    call.bias = w.bias;
    call.output = out;
    call.output_row_stride = out_stride;
    call.out_channels = w.out_channels;
    call.out_length = frames;
    call.kernel_size = w.kernel_size;
    call.dilation = w.dilation;
    call.groups = w.groups;
    call.left_pad = 0;
    call.out_channel_begin = 0;
    call.out_channel_end = w.out_channels;
    call.out_begin = 0;
    call.out_end = frames;
    kernels::active::conv1d(call);
}

}  // namespace forge::infer
