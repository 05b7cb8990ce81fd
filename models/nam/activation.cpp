#include "models/nam/activation.h"

#include <map>

namespace forge::nam {
namespace {

using infer::UnaryOp;

const std::map<std::string, UnaryOp>& names() {
    // "PReLU" is LeakyReLU with per-channel slopes (its single-slope default is 0.01, as Core's).
    static const std::map<std::string, UnaryOp> table = {
        {"Tanh", UnaryOp::Tanh},           {"Fasttanh", UnaryOp::FastTanh},
        {"Hardtanh", UnaryOp::Hardtanh},   {"ReLU", UnaryOp::Relu},
        {"LeakyReLU", UnaryOp::LeakyRelu}, {"PReLU", UnaryOp::LeakyRelu},
        {"Sigmoid", UnaryOp::Sigmoid},     {"SiLU", UnaryOp::Silu},
        {"Hardswish", UnaryOp::Hardswish}, {"LeakyHardtanh", UnaryOp::LeakyHardtanh},
        {"LeakyHardTanh", UnaryOp::LeakyHardtanh}, {"Softsign", UnaryOp::Softsign},
    };
    return table;
}

float number_or(const nlohmann::json& object, const char* key, float fallback) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<float>() : fallback;
}

}  // namespace

Activation Activation::parse(const nlohmann::json& spec, const JsonReader& where, const LoadOptions& options) {
    std::string name;
    if (spec.is_string()) {
        name = spec.get<std::string>();
    } else if (spec.is_object() && spec.contains("type") && spec["type"].is_string()) {
        name = spec["type"].get<std::string>();
    } else {
        where.fail("an activation is a name or an object with a \"type\", got " + spec.dump());
    }
    const auto it = names().find(name);
    if (it == names().end()) where.fail("unknown activation \"" + name + "\"");

    Activation a;
    a.op_ = it->second;
    if (a.op_ == UnaryOp::Tanh && options.fast_tanh) a.op_ = UnaryOp::FastTanh;
    if (spec.is_object()) {
        a.params_.negative_slope = number_or(spec, "negative_slope", 0.01f);
        a.params_.min_val = number_or(spec, "min_val", -1.0f);
        a.params_.max_val = number_or(spec, "max_val", 1.0f);
        a.params_.min_slope = number_or(spec, "min_slope", 0.01f);
        a.params_.max_slope = number_or(spec, "max_slope", 0.01f);
        if (name == "PReLU" && spec.contains("negative_slopes") && !spec.contains("negative_slope")) {
            const auto& slopes = spec["negative_slopes"];
            if (!slopes.is_array() || slopes.empty()) where.fail("PReLU negative_slopes must be a non-empty array");
            for (const auto& s : slopes) {
                if (!s.is_number()) where.fail("PReLU negative_slopes holds a non-number: " + s.dump());
                a.channel_slopes_.push_back(s.get<float>());
            }
        }
    }
    return a;
}

void Activation::apply(Signal x, std::int64_t channels, std::int64_t frames) const noexcept {
    if (op_ == UnaryOp::Identity) return;
    if (channel_slopes_.empty() && x.stride == frames) {
        infer::activate(op_, params_, {x.data, static_cast<std::size_t>(channels * frames)});
        return;
    }
    infer::UnaryParams row_params = params_;
    for (std::int64_t c = 0; c < channels; ++c) {
        // Core's PReLU indexes its slopes by channel modulo their count (NAM/activations.h).
        if (!channel_slopes_.empty()) row_params.negative_slope = channel_slopes_[c % channel_slopes_.size()];
        infer::activate(op_, row_params, {x.row(c), static_cast<std::size_t>(frames)});
    }
}

}  // namespace forge::nam
