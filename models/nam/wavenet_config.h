// The configuration of a WaveNet .nam model, parsed from its "config" object with every
// variant Core accepts (NAM/wavenet/model.cpp, parse_config_json):
//
// - per layer array: channels, bottleneck (default channels), kernel_size or per-layer
//   kernel_sizes, dilations, activation (one or per layer), gating ("gated": bool, or
//   "gating_mode": "none" | "gated" | "blended", one or per layer, with secondary_activation,
//   default Sigmoid), groups_input / groups_input_mixin, layer1x1 {active, groups} (default
//   active), head1x1 {active, out_channels, groups}, head as legacy head_size + head_bias or
//   nested {out_channels, kernel_size, bias, head_dilation}, eight FiLM positions, and the
//   "slimmable" block of a slimmable WaveNet;
// - post-stack "head" {channels, out_channels, kernel_sizes, activation}; head_scale;
//   in_channels; condition_dsp (a whole nested .nam model).
#pragma once

#include "core/infer/nam_wavenet_layer.h"
#include "models/nam/activation.h"
#include "models/nam/film.h"

#include <optional>
#include <vector>

namespace forge::nam {

// How a layer combines the halves of a doubled bottleneck: the fused kernel's own enum.
using Gating = infer::NamGating;

struct WaveNetLayerConfig {
    int kernel_size = 1;
    int dilation = 1;
    Activation activation;
    Gating gating = Gating::None;
    Activation secondary;  // the gate (Gated) or blend weight (Blended)
};

struct LayerArrayConfig {
    int input_size = 1;
    int condition_size = 1;
    int channels = 1;
    int bottleneck = 1;
    int head_size = 1;
    int head_kernel_size = 1;
    int head_dilation = 1;
    bool head_bias = false;
    int groups_input = 1;
    int groups_input_mixin = 1;
    bool layer1x1_active = true;
    int layer1x1_groups = 1;
    bool head1x1_active = false;
    int head1x1_out_channels = 1;
    int head1x1_groups = 1;
    FilmConfig conv_pre, conv_post, mixin_pre, mixin_post, activation_pre, activation_post, layer1x1_post,
        head1x1_post;
    std::vector<WaveNetLayerConfig> layers;
    std::vector<int> slimmable_channels;  // allowed channel counts; empty: not slimmable

    // What each layer sends to the head accumulator: head1x1's output, else the activation.
    int head_output_size() const { return head1x1_active ? head1x1_out_channels : bottleneck; }
};

struct PostHeadConfig {
    int in_channels = 1;
    int channels = 1;
    int out_channels = 1;
    std::vector<int> kernel_sizes;
    Activation activation;
};

struct WaveNetConfig {
    int in_channels = 1;
    std::vector<LayerArrayConfig> arrays;
    float head_scale = 1.0f;  // overridden by the last weight, as in Core
    std::optional<PostHeadConfig> head;
    std::optional<nlohmann::json> condition_dsp;
};

WaveNetConfig parse_wavenet_config(const JsonReader& config, const LoadOptions& options);

// True if any layer array carries Core's "slimmable" block (method slice_channels_uniform).
bool is_slimmable_wavenet(const JsonReader& config);

// A slimmable WaveNet cut down to `ratio` in [0, 1]: each slimmable array keeps
// allowed[min(floor(ratio·n), n-1)] channels and the leading rows/columns of every weight
// tensor (NAM/wavenet/slimmable.cpp). Returns the new config and weight list.
struct SlimmedWaveNet {
    WaveNetConfig config;
    std::vector<float> weights;
};
SlimmedWaveNet slim_wavenet(const WaveNetConfig& full, std::span<const float> weights, double ratio,
                            const std::string& source);

}  // namespace forge::nam
