// 1-D convolution (cross-correlation, as in PyTorch) of one batch element:
//
//   out[o, t] = bias[o] + sum over c in o's group, k < K of
//               weight[o, c, k] * in[g*Cg + c, t + k*dilation - left_pad]
//
// where inputs outside [0, in_length) read as zero. Causal convolution is left_pad =
// (K-1)*dilation with out_length = in_length; valid convolution is left_pad = 0 with
// out_length = in_length - (K-1)*dilation. The front-end may split the output channels and
// time range across calls (out_channel_begin/end, out_begin/end); every output element is
// computed by exactly one call, in the same order whatever the split.
#pragma once

#include <cstdint>

namespace forge::kernels {

struct Conv1d {
    const float* input;        // [in_channels, in_length], rows input_row_stride apart
    std::int64_t input_row_stride;
    std::int64_t in_channels;
    std::int64_t in_length;
    const float* weight;       // [out_channels, in_channels / groups, kernel_size], contiguous
    const float* bias;         // [out_channels], or nullptr for none
    float* output;             // [out_channels, out_length], rows output_row_stride apart
    std::int64_t output_row_stride;
    std::int64_t out_channels;
    std::int64_t out_length;
    std::int64_t kernel_size;
    std::int64_t dilation;
    std::int64_t groups;
    std::int64_t left_pad;
    // The part of the output this call writes: channels [begin, end), times [begin, end).
    std::int64_t out_channel_begin, out_channel_end;
    std::int64_t out_begin, out_end;
};

namespace scalar { void conv1d(const Conv1d& conv) noexcept; }
namespace simd { void conv1d(const Conv1d& conv) noexcept; }

}  // namespace forge::kernels
