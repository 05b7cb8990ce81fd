#include "kernels/conv2d.h"

namespace forge::kernels::scalar {

void conv2d(const Conv2d& conv) noexcept {
    const std::int64_t out_per_group = conv.out_channels / conv.groups;
    const std::int64_t in_per_group = conv.in_channels / conv.groups;
    const std::int64_t taps = conv.kernel_h * conv.kernel_w;
    for (std::int64_t o = conv.out_channel_begin; o < conv.out_channel_end; ++o) {
        const std::int64_t first_input = (o / out_per_group) * in_per_group;
        const float* weights = conv.weight + o * in_per_group * taps;
        for (std::int64_t y = 0; y < conv.out_height; ++y) {
            for (std::int64_t x = 0; x < conv.out_width; ++x) {
                float sum = conv.bias != nullptr ? conv.bias[o] : 0.0f;
                for (std::int64_t c = 0; c < in_per_group; ++c) {
                    const float* plane = conv.input + (first_input + c) * conv.in_height * conv.in_width;
                    for (std::int64_t i = 0; i < conv.kernel_h; ++i) {
                        const std::int64_t row = y * conv.stride_h + i - conv.pad_h;
                        if (row < 0 || row >= conv.in_height) continue;  // zero padding
                        for (std::int64_t j = 0; j < conv.kernel_w; ++j) {
                            const std::int64_t col = x * conv.stride_w + j - conv.pad_w;
                            if (col < 0 || col >= conv.in_width) continue;
                            sum += weights[(c * conv.kernel_h + i) * conv.kernel_w + j] * plane[row * conv.in_width + col];
                        }
                    }
                }
                conv.output[(o * conv.out_height + y) * conv.out_width + x] = sum;
            }
        }
    }
}

}  // namespace forge::kernels::scalar
