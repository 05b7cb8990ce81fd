// 2-D convolution (cross-correlation, as PyTorch's Conv2d) of one batch element, with stride,
// zero padding and groups:
//
//   out[o, y, x] = bias[o] + sum over c in o's group, i < KH, j < KW of
//                  weight[o, c, i, j] * in[g*Cg + c, y*stride_h + i - pad_h, x*stride_w + j - pad_w]
//
// where inputs outside the image read as zero. FastConformer's dw_striding subsampling is built
// from it (3x3 kernels of stride 2, full and depthwise). The front-end may split the output
// channels across calls; each output element is computed by exactly one call, in the same order
// whatever the split.
#pragma once

#include <cstdint>

namespace forge::kernels {

struct Conv2d {
    const float* input;   // [in_channels, in_height, in_width], contiguous
    std::int64_t in_channels, in_height, in_width;
    const float* weight;  // [out_channels, in_channels / groups, kernel_h, kernel_w], contiguous
    const float* bias;    // [out_channels], or nullptr for none
    float* output;        // [out_channels, out_height, out_width], contiguous
    std::int64_t out_channels, out_height, out_width;
    std::int64_t kernel_h, kernel_w;
    std::int64_t stride_h, stride_w;
    std::int64_t pad_h, pad_w;
    std::int64_t groups;
    std::int64_t out_channel_begin, out_channel_end;  // the channels this call writes
};

namespace scalar { void conv2d(const Conv2d& conv) noexcept; }
namespace simd { void conv2d(const Conv2d& conv) noexcept; }

}  // namespace forge::kernels
