// The Linear architecture of NAM (Core: NAM/linear.cpp): an FIR filter,
// y[t] = bias + Σ_{i < receptive_field} w[i]·x[t-i], so w[0] weighs the current sample.
#pragma once

#include "models/nam/conv.h"
#include "models/nam/json_reader.h"
#include "models/nam/model.h"

#include <optional>

namespace forge::nam {

class Linear final : public Model {
public:
    Linear(const JsonReader& config, std::span<const float> weights, const std::string& source);
    void prepare(int max_frames) override { fir_->prepare(max_frames); }
    void process(ConstSignal in, Signal out, int frames) noexcept override { fir_->process(in, out, frames); }
    long prewarm_samples() const override { return 0; }  // as Core: the history starts at zero
    std::string describe() const override;

private:
    int receptive_field_;
    bool bias_;
    std::optional<CausalConv> fir_;
};

}  // namespace forge::nam
