// One NAM activation function as a .nam config names it: a string ("Tanh") or an object
// with parameters ({"type": "LeakyReLU", "negative_slope": 0.01}, PReLU with per-channel
// "negative_slopes", LeakyHardtanh with min/max value and slope). Semantics and defaults as
// NeuralAmpModelerCore's ActivationConfig::from_json (NAM/activations.cpp).
#pragma once

#include "core/infer/activation.h"
#include "models/nam/json_reader.h"
#include "models/nam/signal.h"

#include <vector>

namespace forge::nam {

struct LoadOptions {
    bool fast_tanh = false;  // Core's enable_fast_tanh(): Tanh (and LSTM's gates) approximated
};

class Activation {
public:
    Activation() = default;  // identity
    static Activation parse(const nlohmann::json& spec, const JsonReader& where, const LoadOptions& options);

    // Apply to `channels` rows of `frames` values, in place. PReLU's slope follows the row.
    void apply(Signal x, std::int64_t channels, std::int64_t frames) const noexcept;

    infer::UnaryOp op() const { return op_; }
    const infer::UnaryParams& params() const { return params_; }
    bool per_channel() const { return !channel_slopes_.empty(); }  // PReLU with a slope per channel

private:
    infer::UnaryOp op_ = infer::UnaryOp::Identity;
    infer::UnaryParams params_;
    std::vector<float> channel_slopes_;  // PReLU with one slope per channel
};

}  // namespace forge::nam
