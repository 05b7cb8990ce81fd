// The WaveNet architecture of NAM (Core: NAM/wavenet/model.cpp): layer arrays of dilated
// causal layers, each array summing its layers' head outputs into a head rechannel conv; the
// second array's accumulator starts from the first array's head output and its layers read
// the first array's last residual. An optional condition DSP (itself a NAM model) turns the
// input into the condition the input mixins read; an optional post-stack head of
// activation + conv stages follows; the output is scaled by head_scale (the last weight).
#pragma once

#include "models/nam/model.h"
#include "models/nam/wavenet_layer.h"

#include <memory>
#include <vector>

namespace forge::nam {

class LayerArray {
public:
    LayerArray(const LayerArrayConfig& config, WeightCursor& weights, const std::string& what);
    void prepare(int max_frames);
    // head_in: the previous array's head output, or null for the first array. residual_wanted
    // false (the last array, whose residual Core computes and nobody reads): residual() is
    // left unspecified, and the last layer's layer 1x1 is skipped.
    void process(ConstSignal x, ConstSignal condition, const ConstSignal* head_in, int frames,
                 bool residual_wanted) noexcept;
    ConstSignal residual() const { return residual_.signal(); }
    ConstSignal head() const { return head_out_.signal(); }
    long receptive_field() const;

private:
    LayerArrayConfig config_;
    Conv1x1 rechannel_;
    std::vector<WaveNetLayer> layers_;
    std::optional<CausalConv> head_rechannel_;  // its weights follow the layers'
    SignalBuffer residual_, head_sum_, head_out_;  // the last layer's next, Σ heads, head rechannel
};

// The post-stack head: for each stage, activation then a biased causal conv (Core's
// detail::Head: the activation runs on each conv's input, the first one included).
class PostHead {
public:
    PostHead(const PostHeadConfig& config, WeightCursor& weights, const std::string& what);
    void prepare(int max_frames);
    void process(Signal x, int frames) noexcept;  // x is modified (activated in place)
    ConstSignal output() const { return outputs_.back().signal(); }
    long receptive_field() const;

private:
    Activation activation_;
    std::vector<CausalConv> convs_;
    std::vector<SignalBuffer> outputs_;
};

class WaveNet final : public Model {
public:
    WaveNet(const WaveNetConfig& config, std::span<const float> weights, const std::string& source,
            std::unique_ptr<Model> condition_dsp);

    int in_channels() const override { return in_channels_; }
    int out_channels() const override { return out_channels_; }
    void prepare(int max_frames) override;
    void process(ConstSignal in, Signal out, int frames) noexcept override;
    long prewarm_samples() const override;
    std::string describe() const override;

private:
    int in_channels_;
    int out_channels_ = 1;
    int head_in_channels_ = 1;
    float head_scale_;
    std::unique_ptr<Model> condition_dsp_;
    std::vector<LayerArray> arrays_;
    std::optional<PostHead> head_;
    SignalBuffer condition_;     // condition DSP output
    SignalBuffer head_scratch_;  // scaled input of the post-stack head
    std::string summary_;
};

}  // namespace forge::nam
