// The ConvNet architecture of NAM (Core: NAM/convnet.cpp): blocks of a causal kernel-2
// dilated conv (biased unless batch-normed), an optional batch norm (running mean, running
// var, weight, bias, eps, folded into a scale and offset), and an activation; then a 1x1
// head with bias.
#pragma once

#include "models/nam/activation.h"
#include "models/nam/conv.h"
#include "models/nam/model.h"

#include <optional>
#include <vector>

namespace forge::nam {

class ConvNet final : public Model {
public:
    ConvNet(const JsonReader& config, std::span<const float> weights, const std::string& source,
            const LoadOptions& options);
    void prepare(int max_frames) override;
    void process(ConstSignal in, Signal out, int frames) noexcept override;
    long prewarm_samples() const override;
    std::string describe() const override;

private:
    struct Block {
        CausalConv conv;
        std::vector<float> scale, offset;  // batch norm; empty without
        SignalBuffer out;
    };
    std::vector<int> dilations_;
    int channels_;
    Activation activation_;
    std::vector<Block> blocks_;
    std::optional<Conv1x1> head_;
};

}  // namespace forge::nam
