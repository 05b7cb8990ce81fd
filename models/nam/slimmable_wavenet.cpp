// Slimming a slimmable WaveNet (Core: NAM/wavenet/slimmable.cpp): every tensor keeps its
// leading output rows and input columns, walked in the weight order of the full model.
#include "models/nam/wavenet_config.h"
#include "models/nam/weight_cursor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace forge::nam {
namespace {

class Slicer {
public:
    Slicer(std::span<const float> full, const std::string& source) : cursor_(full, source) {}

    // A conv [out][in][k] (+ bias[out]) of which rows < keep_out and columns < keep_in survive.
    void conv(int in, int out, int keep_in, int keep_out, int k, bool bias) {
        const auto w = cursor_.take(static_cast<std::size_t>(in) * out * k, "slimmed conv");
        for (int o = 0; o < out; ++o)
            for (int i = 0; i < in; ++i)
                for (int t = 0; t < k; ++t)
                    if (o < keep_out && i < keep_in) kept_.push_back(w[(static_cast<std::size_t>(o) * in + i) * k + t]);
        if (bias) {
            const auto b = cursor_.take(static_cast<std::size_t>(out), "slimmed bias");
            for (int o = 0; o < keep_out; ++o) kept_.push_back(b[o]);
        }
    }
    void film(const FilmConfig& f, int condition, int full, int keep) {
        if (!f.active) return;
        const int m = f.shift ? 2 : 1;
        conv(condition, m * full, condition, m * keep, 1, true);
    }
    void rest() {
        const auto tail = cursor_.take(1, "head_scale");
        kept_.push_back(tail[0]);
        cursor_.expect_end();
    }
    std::vector<float> take() { return std::move(kept_); }

private:
    WeightCursor cursor_;
    std::vector<float> kept_;
};

int slim_bottleneck(const LayerArrayConfig& a, int channels) {
    return a.layer1x1_active ? std::max(1, a.bottleneck * channels / a.channels) : channels;
}

void check_sliceable(const LayerArrayConfig& a, const std::string& source) {
    if (a.groups_input != 1 || a.groups_input_mixin != 1 || (a.layer1x1_active && a.layer1x1_groups != 1) ||
        (a.head1x1_active && a.head1x1_groups != 1) || a.head_kernel_size != 1)
        fail_format("{}: config: slimming needs groups of 1 and a head kernel size of 1", source);
}

}  // namespace

SlimmedWaveNet slim_wavenet(const WaveNetConfig& full, std::span<const float> weights, double ratio,
                            const std::string& source) {
    if (full.head) fail_format("{}: config.head: a slimmable WaveNet cannot have a post-stack head", source);
    const std::size_t n = full.arrays.size();
    std::vector<int> target(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& allowed = full.arrays[i].slimmable_channels;
        if (allowed.empty()) {
            target[i] = full.arrays[i].channels;
        } else {
            const auto count = static_cast<int>(allowed.size());
            target[i] = allowed[std::min(static_cast<int>(std::floor(ratio * count)), count - 1)];
        }
    }
    SlimmedWaveNet out{full, {}};
    Slicer slice(weights, source);
    for (std::size_t i = 0; i < n; ++i) {
        const LayerArrayConfig& a = full.arrays[i];
        check_sliceable(a, source);
        LayerArrayConfig& s = out.config.arrays[i];
        s.channels = target[i];
        s.bottleneck = slim_bottleneck(a, target[i]);
        s.input_size = i == 0 ? a.input_size : target[i - 1];
        s.head_size = i + 1 < n ? target[i + 1] : a.head_size;
        const int c = a.condition_size;
        slice.conv(a.input_size, a.channels, s.input_size, s.channels, 1, false);  // rechannel
        for (const auto& layer : a.layers) {
            const int g = layer.gating == Gating::None ? 1 : 2;
            slice.conv(a.channels, g * a.bottleneck, s.channels, g * s.bottleneck, layer.kernel_size, true);
            slice.conv(c, g * a.bottleneck, c, g * s.bottleneck, 1, false);  // input mixin
            if (a.layer1x1_active) slice.conv(a.bottleneck, a.channels, s.bottleneck, s.channels, 1, true);
            if (a.head1x1_active)
                slice.conv(a.bottleneck, a.head1x1_out_channels, s.bottleneck, a.head1x1_out_channels, 1, true);
            slice.film(a.conv_pre, c, a.channels, s.channels);
            slice.film(a.conv_post, c, g * a.bottleneck, g * s.bottleneck);
            slice.film(a.mixin_pre, c, c, c);
            slice.film(a.mixin_post, c, g * a.bottleneck, g * s.bottleneck);
            slice.film(a.activation_pre, c, g * a.bottleneck, g * s.bottleneck);
            slice.film(a.activation_post, c, a.bottleneck, s.bottleneck);
            slice.film(a.layer1x1_post, c, a.channels, s.channels);
            slice.film(a.head1x1_post, c, a.head1x1_out_channels, a.head1x1_out_channels);
        }
        slice.conv(a.head_output_size(), a.head_size, s.head_output_size(), s.head_size, 1, a.head_bias);
    }
    slice.rest();
    out.weights = slice.take();
    return out;
}

}  // namespace forge::nam
