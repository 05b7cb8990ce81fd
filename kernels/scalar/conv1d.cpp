#include "kernels/conv1d.h"

namespace forge::kernels::scalar {

void conv1d(const Conv1d& conv) noexcept {
    const std::int64_t out_per_group = conv.out_channels / conv.groups;
    const std::int64_t in_per_group = conv.in_channels / conv.groups;
    for (std::int64_t o = conv.out_channel_begin; o < conv.out_channel_end; ++o) {
        const std::int64_t first_input = (o / out_per_group) * in_per_group;
        const float* weights = conv.weight + o * in_per_group * conv.kernel_size;
        float* out = conv.output + o * conv.output_row_stride;
        for (std::int64_t t = conv.out_begin; t < conv.out_end; ++t) {
            float sum = conv.bias != nullptr ? conv.bias[o] : 0.0f;
            for (std::int64_t c = 0; c < in_per_group; ++c) {
                const float* in = conv.input + (first_input + c) * conv.input_row_stride;
                for (std::int64_t k = 0; k < conv.kernel_size; ++k) {
                    const std::int64_t source = t + k * conv.dilation - conv.left_pad;
                    if (source < 0 || source >= conv.in_length) continue;  // zero padding
                    sum += weights[c * conv.kernel_size + k] * in[source];
                }
            }
            out[t] = sum;
        }
    }
}

}  // namespace forge::kernels::scalar
