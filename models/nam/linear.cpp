#include "models/nam/linear.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace forge::nam {

Linear::Linear(const JsonReader& config, std::span<const float> weights, const std::string& source)
    : receptive_field_(config.integer("receptive_field")), bias_(config.boolean("bias")) {
    if (config.integer_or("in_channels", 1) != 1 || config.integer_or("out_channels", 1) != 1)
        config.fail("forge plays mono Linear models only");
    if (receptive_field_ < 1) config.fail_field("receptive_field", "must be at least 1");
    const std::size_t expected = static_cast<std::size_t>(receptive_field_) + (bias_ ? 1 : 0);
    if (weights.size() != expected)
        fail_format("{}: weights: a Linear model with receptive_field {}{} has {} weights, not {}",
                    source, receptive_field_, bias_ ? " and a bias" : "", expected, weights.size());
    // A causal conv's last tap is the current sample, so the taps are w reversed.
    std::vector<float> taps(weights.begin(), weights.begin() + receptive_field_);
    std::reverse(taps.begin(), taps.end());
    if (bias_) taps.push_back(weights[receptive_field_]);
    WeightCursor cursor(taps, source);
    fir_.emplace(ConvShape{1, 1, receptive_field_, 1, 1, bias_}, cursor, "Linear taps");
}

std::string Linear::describe() const {
    return fmt::format("Linear: receptive field {}{}", receptive_field_, bias_ ? ", with bias" : "");
}

}  // namespace forge::nam
