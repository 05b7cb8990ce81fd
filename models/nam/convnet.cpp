#include "models/nam/convnet.h"

#include <fmt/format.h>

#include <cmath>

namespace forge::nam {

ConvNet::ConvNet(const JsonReader& config, std::span<const float> weights, const std::string& source,
                 const LoadOptions& options)
    : dilations_(config.integers("dilations")),
      channels_(config.integer("channels")),
      activation_(Activation::parse(config.child("activation").value(), config, options)) {
    const bool batchnorm = config.boolean("batchnorm");
    const int groups = config.integer_or("groups", 1);
    if (config.integer_or("in_channels", 1) != 1 || config.integer_or("out_channels", 1) != 1)
        config.fail("forge plays mono ConvNet models only");
    if (dilations_.empty()) config.fail_field("dilations", "needs at least one block");
    WeightCursor cursor(weights, source);
    for (std::size_t i = 0; i < dilations_.size(); ++i) {
        const std::string what = fmt::format("ConvNet block {}", i);
        Block block{CausalConv({i == 0 ? 1 : channels_, channels_, 2, dilations_[i], groups, !batchnorm}, cursor,
                               what + " conv"),
                    {}, {}, {}};
        if (batchnorm) {
            const auto c = static_cast<std::size_t>(channels_);
            const auto mean = cursor.take(c, what + " running_mean");
            const auto var = cursor.take(c, what + " running_var");
            const auto weight = cursor.take(c, what + " weight");
            const auto bias = cursor.take(c, what + " bias");
            const float eps = cursor.take_one(what + " eps");
            for (std::size_t k = 0; k < c; ++k) {
                block.scale.push_back(weight[k] / std::sqrt(eps + var[k]));
                block.offset.push_back(bias[k] - block.scale[k] * mean[k]);
            }
        }
        blocks_.push_back(std::move(block));
    }
    head_.emplace(ConvShape{channels_, 1, 1, 1, 1, true}, cursor, "ConvNet head");
    cursor.expect_end();
}

void ConvNet::prepare(int max_frames) {
    for (auto& b : blocks_) {
        b.conv.prepare(max_frames);
        b.out.resize(channels_, max_frames);
    }
}

void ConvNet::process(ConstSignal in, Signal out, int frames) noexcept {
    ConstSignal x = in;
    for (auto& b : blocks_) {
        const Signal y = b.out.signal();
        b.conv.process(x, y, frames);
        for (std::size_t c = 0; c < b.scale.size(); ++c) {
            float* row = y.row(static_cast<std::int64_t>(c));
            for (int t = 0; t < frames; ++t) row[t] = row[t] * b.scale[c] + b.offset[c];
        }
        activation_.apply(y, channels_, frames);
        x = y;
    }
    head_->process(x, out, frames);
}

long ConvNet::prewarm_samples() const {
    long n = 1;
    for (int d : dilations_) n += d;
    return n;
}

std::string ConvNet::describe() const {
    return fmt::format("ConvNet: {} blocks of {} channels", blocks_.size(), channels_);
}

}  // namespace forge::nam
