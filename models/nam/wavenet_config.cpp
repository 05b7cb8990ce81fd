#include "models/nam/wavenet_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace forge::nam {
namespace {

constexpr const char* kSlimMethod = "slice_channels_uniform";

Gating parse_gating(const nlohmann::json& v, const JsonReader& where) {
    if (v.is_string()) {
        const auto s = v.get<std::string>();
        if (s == "none") return Gating::None;
        if (s == "gated") return Gating::Gated;
        if (s == "blended") return Gating::Blended;
    }
    where.fail_field("gating_mode", "expected \"none\", \"gated\" or \"blended\", got " + v.dump());
}

// An absent or `false` FiLM block is inactive; an object defaults to active, with shift, 1 group.
FilmConfig parse_film(const JsonReader& layer, const std::string& key) {
    if (!layer.has(key) || layer.value()[key] == false) return {};
    const JsonReader film = layer.child(key);
    return {film.boolean_or("active", true), film.boolean_or("shift", true), film.integer_or("groups", 1)};
}

std::vector<int> parse_kernel_sizes(const JsonReader& layer, std::size_t n) {
    const bool one = layer.has("kernel_size");
    const bool many = layer.has("kernel_sizes");
    if (one && many) layer.fail("only one of kernel_size and kernel_sizes may be given");
    if (many) {
        auto sizes = layer.integers("kernel_sizes");
        if (sizes.size() != n) layer.fail_field("kernel_sizes", fmt::format("has {} entries for {} layers", sizes.size(), n));
        return sizes;
    }
    if (!one) layer.fail("either kernel_size or kernel_sizes is required");
    return std::vector<int>(n, layer.integer("kernel_size"));
}

// One value for every layer, or a list with one per layer.
std::vector<nlohmann::json> per_layer(const JsonReader& layer, const std::string& key, std::size_t n) {
    const auto& v = layer.child(key).value();  // required: a const json's [] on a missing key is undefined
    if (!v.is_array()) return std::vector<nlohmann::json>(n, v);
    if (v.size() != n) layer.fail_field(key, fmt::format("has {} entries for {} layers", v.size(), n));
    return {v.begin(), v.end()};
}

void parse_gating_modes(const JsonReader& layer, std::vector<WaveNetLayerConfig>& layers,
                        const LoadOptions& options) {
    const std::size_t n = layers.size();
    std::vector<Gating> modes(n, Gating::None);
    if (layer.has("gating_mode")) {
        const auto specs = per_layer(layer, "gating_mode", n);
        for (std::size_t i = 0; i < n; ++i) modes[i] = parse_gating(specs[i], layer);
    } else if (layer.has("gated")) {
        std::fill(modes.begin(), modes.end(), layer.boolean("gated") ? Gating::Gated : Gating::None);
    }
    // The secondary activation is read only for gated or blended layers (Core ignores it
    // elsewhere, and exports write "" or null there); Sigmoid when absent.
    const bool has_secondary = layer.has("gating_mode") && layer.has("secondary_activation");
    const auto secondary = has_secondary ? per_layer(layer, "secondary_activation", n)
                                         : std::vector<nlohmann::json>(n, "Sigmoid");
    const JsonReader where = has_secondary ? layer.child("secondary_activation") : layer;
    for (std::size_t i = 0; i < n; ++i) {
        layers[i].gating = modes[i];
        if (modes[i] != Gating::None) layers[i].secondary = Activation::parse(secondary[i], where, options);
    }
}

void parse_head(const JsonReader& layer, LayerArrayConfig& a) {
    if (layer.has("head")) {
        const JsonReader head = layer.child("head");
        a.head_size = head.integer("out_channels");
        a.head_kernel_size = head.integer("kernel_size");
        a.head_bias = head.boolean("bias");
        a.head_dilation = head.integer_or("head_dilation", 1);
    } else if (layer.has("head_size")) {
        a.head_size = layer.integer("head_size");
        a.head_bias = layer.boolean("head_bias");
    } else {
        layer.fail("expected a \"head\" object or the legacy \"head_size\" and \"head_bias\"");
    }
    if (a.head_kernel_size < 1) layer.fail_field("head", "kernel_size must be at least 1");
}

std::vector<int> parse_slimmable(const JsonReader& layer, int channels) {
    if (!layer.has("slimmable") || !layer.value()["slimmable"].is_object()) return {};
    const JsonReader slim = layer.child("slimmable");
    const std::string method = slim.has("method") ? slim.string("method") : "";
    if (method != kSlimMethod) slim.fail_field("method", "unsupported slimming method \"" + method + "\"");
    std::vector<int> allowed;
    if (slim.has("kwargs") && slim.child("kwargs").has("allowed_channels")) {
        allowed = slim.child("kwargs").integers("allowed_channels");
    } else {
        for (int c = 1; c <= channels; ++c) allowed.push_back(c);
    }
    for (std::size_t i = 1; i < allowed.size(); ++i)
        if (allowed[i] <= allowed[i - 1]) slim.fail("allowed_channels must be ascending");
    if (allowed.empty() || allowed.back() != channels)
        slim.fail("the last allowed_channels entry must equal the array's channels");
    return allowed;
}

LayerArrayConfig parse_layer_array(const JsonReader& layer, const LoadOptions& options) {
    LayerArrayConfig a;
    a.input_size = layer.integer("input_size");
    a.condition_size = layer.integer("condition_size");
    a.channels = layer.integer("channels");
    a.bottleneck = layer.integer_or("bottleneck", a.channels);
    a.groups_input = layer.integer_or("groups_input", 1);
    a.groups_input_mixin = layer.integer_or("groups_input_mixin", 1);
    if (layer.has("layer1x1")) {
        const JsonReader l = layer.child("layer1x1");
        a.layer1x1_active = l.boolean("active");
        a.layer1x1_groups = l.integer("groups");
    }
    a.head1x1_out_channels = a.channels;
    if (layer.has("head1x1")) {
        const JsonReader h = layer.child("head1x1");
        a.head1x1_active = h.boolean("active");
        a.head1x1_out_channels = h.integer("out_channels");
        a.head1x1_groups = h.integer("groups");
    }
    parse_head(layer, a);

    const std::vector<int> dilations = layer.integers("dilations");
    const std::size_t n = dilations.size();
    if (n == 0) layer.fail_field("dilations", "a layer array needs at least one layer");
    const std::vector<int> kernel_sizes = parse_kernel_sizes(layer, n);
    const auto activations = per_layer(layer, "activation", n);
    const JsonReader activation_where = layer.child("activation");
    a.layers.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        a.layers[i].dilation = dilations[i];
        a.layers[i].kernel_size = kernel_sizes[i];
        a.layers[i].activation = Activation::parse(activations[i], activation_where, options);
    }
    parse_gating_modes(layer, a.layers, options);

    a.conv_pre = parse_film(layer, "conv_pre_film");
    a.conv_post = parse_film(layer, "conv_post_film");
    a.mixin_pre = parse_film(layer, "input_mixin_pre_film");
    a.mixin_post = parse_film(layer, "input_mixin_post_film");
    a.activation_pre = parse_film(layer, "activation_pre_film");
    a.activation_post = parse_film(layer, "activation_post_film");
    a.layer1x1_post = parse_film(layer, "layer1x1_post_film");
    a.head1x1_post = parse_film(layer, "head1x1_post_film");
    // Core refuses these combinations (NAM/wavenet/detail.h).
    if (!a.layer1x1_active && a.bottleneck != a.channels)
        layer.fail("bottleneck must equal channels when layer1x1 is inactive");
    if (a.layer1x1_post.active && !a.layer1x1_active)
        layer.fail("layer1x1_post_film cannot be active when layer1x1 is inactive");
    if (a.head1x1_post.active && !a.head1x1_active)
        layer.fail("head1x1_post_film cannot be active when head1x1 is inactive");
    a.slimmable_channels = parse_slimmable(layer, a.channels);
    return a;
}

}  // namespace

WaveNetConfig parse_wavenet_config(const JsonReader& config, const LoadOptions& options) {
    WaveNetConfig wc;
    const JsonReader layers = config.child("layers");
    const std::size_t count = layers.array_size();
    if (count == 0) layers.fail("a WaveNet needs at least one layer array");
    for (std::size_t i = 0; i < count; ++i) wc.arrays.push_back(parse_layer_array(layers.element(i), options));
    wc.head_scale = static_cast<float>(config.number("head_scale"));
    wc.in_channels = config.integer_or("in_channels", 1);
    if (config.has("condition_dsp")) wc.condition_dsp = config.value()["condition_dsp"];
    if (config.has("head")) {
        const JsonReader head = config.child("head");
        PostHeadConfig h;
        h.in_channels = wc.arrays.back().head_size;
        if (head.has("in_channels") && head.integer("in_channels") != h.in_channels)
            head.fail_field("in_channels", "must equal the last layer array's head size");
        h.channels = head.integer("channels");
        h.out_channels = head.integer("out_channels");
        h.kernel_sizes = head.integers("kernel_sizes");
        if (h.kernel_sizes.empty()) head.fail_field("kernel_sizes", "must not be empty");
        h.activation = Activation::parse(head.child("activation").value(), head, options);
        wc.head = std::move(h);
    }
    return wc;
}

bool is_slimmable_wavenet(const JsonReader& config) {
    if (!config.has("layers") || !config.value()["layers"].is_array()) return false;
    for (const auto& layer : config.value()["layers"])
        if (layer.is_object() && layer.contains("slimmable") && layer["slimmable"].is_object()) return true;
    return false;
}

}  // namespace forge::nam
