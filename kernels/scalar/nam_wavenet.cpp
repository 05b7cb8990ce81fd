// The readable specification of one fused WaveNet layer (kernels/nam_wavenet.h): three passes
// over the block, each a plain loop nest in the order of the formulas.
#include "kernels/nam_wavenet.h"

namespace forge::kernels::scalar {
namespace {

float activate(UnaryOp op, const UnaryParams& params, float v) noexcept {
    unary(op, {&v, 1}, {&v, 1}, params);
    return v;
}

// z = conv(x) + mixin(condition) + bias, before any activation.
void dilated_conv(const NamWaveNetLayer& l) noexcept {
    const std::int64_t rows = l.rows();
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t t = 0; t < l.frames; ++t) {
            float sum = l.conv_bias != nullptr ? l.conv_bias[r] : 0.0f;
            for (std::int64_t k = 0; k < l.kernel_size; ++k) {
                const std::int64_t source = t - (l.kernel_size - 1 - k) * l.dilation;
                for (std::int64_t c = 0; c < l.channels; ++c)
                    sum += l.conv[(k * l.channels + c) * rows + r] * l.input[c * l.input_stride + source];
            }
            for (std::int64_t m = 0; m < l.condition_size; ++m)
                sum += l.mixin[m * rows + r] * l.condition[m * l.condition_stride + t];
            l.z[r * l.frames + t] = sum;
        }
    }
}

// The top B rows of z become the activation (gated or blended with the bottom B rows).
void activate_rows(const NamWaveNetLayer& l) noexcept {
    const std::int64_t b_rows = l.bottleneck;
    for (std::int64_t b = 0; b < b_rows; ++b) {
        for (std::int64_t t = 0; t < l.frames; ++t) {
            float& top = l.z[b * l.frames + t];
            const float bottom = l.gating == NamGating::None ? 0.0f : l.z[(b_rows + b) * l.frames + t];
            const float active = activate(l.activation, l.activation_params, top);
            switch (l.gating) {
                case NamGating::None: top = active; break;
                case NamGating::Gated: top = active * activate(l.secondary, l.secondary_params, bottom); break;
                case NamGating::Blended: {
                    const float alpha = activate(l.secondary, l.secondary_params, bottom);
                    top = alpha * active + (1.0f - alpha) * top;
                    break;
                }
            }
        }
    }
}

// next = x + layer1x1(z) (unless nobody reads it); head += head1x1(z).
void pointwise_outputs(const NamWaveNetLayer& l) noexcept {
    for (std::int64_t c = 0; l.next != nullptr && c < l.channels; ++c) {
        for (std::int64_t t = 0; t < l.frames; ++t) {
            float sum = l.input[c * l.input_stride + t];
            if (l.layer1x1 != nullptr) {
                float mixed = l.layer1x1_bias != nullptr ? l.layer1x1_bias[c] : 0.0f;
                for (std::int64_t b = 0; b < l.bottleneck; ++b) mixed += l.layer1x1[b * l.channels + c] * l.z[b * l.frames + t];
                sum += mixed;
            }
            l.next[c * l.next_stride + t] = sum;
        }
    }
    for (std::int64_t h = 0; h < l.head_size; ++h) {
        for (std::int64_t t = 0; t < l.frames; ++t) {
            float sum = l.z[h * l.frames + t];
            if (l.head1x1 != nullptr) {
                sum = l.head1x1_bias != nullptr ? l.head1x1_bias[h] : 0.0f;
                for (std::int64_t b = 0; b < l.bottleneck; ++b) sum += l.head1x1[b * l.head_size + h] * l.z[b * l.frames + t];
            }
            l.head[h * l.head_stride + t] += sum;
        }
    }
}

}  // namespace

void nam_wavenet_layer(const NamWaveNetLayer& layer) noexcept {
    dilated_conv(layer);
    activate_rows(layer);
    pointwise_outputs(layer);
}

}  // namespace forge::kernels::scalar
