#include "models/nam/wavenet.h"

#include "core/error.h"
#include "core/infer/row_ops.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

namespace forge::nam {
namespace {

void copy_rows(ConstSignal from, Signal to, std::int64_t rows, int frames) noexcept {
    for (std::int64_t c = 0; c < rows; ++c)
        std::memcpy(to.row(c), from.row(c), static_cast<std::size_t>(frames) * sizeof(float));
}

void scale_rows(ConstSignal from, float scale, Signal to, std::int64_t rows, int frames) noexcept {
    const auto n = static_cast<std::size_t>(frames);
    for (std::int64_t c = 0; c < rows; ++c)
        infer::multiply_rows({from.row(c), n}, {&scale, 1}, {to.row(c), n});
}

}  // namespace

// ---- LayerArray: rechannel, layers, head rechannel (Core: LayerArray::set_weights_) ----

LayerArray::LayerArray(const LayerArrayConfig& config, WeightCursor& weights, const std::string& what)
    : config_(config), rechannel_({config.input_size, config.channels, 1, 1, 1, false}, weights, what + " rechannel") {
    for (std::size_t i = 0; i < config.layers.size(); ++i)
        layers_.emplace_back(config, config.layers[i], weights, fmt::format("{} layer {}", what, i));
    head_rechannel_.emplace(ConvShape{config.head_output_size(), config.head_size, config.head_kernel_size,
                                      config.head_dilation, 1, config.head_bias},
                            weights, what + " head_rechannel");
}

void LayerArray::prepare(int max_frames) {
    residual_.resize(config_.channels, max_frames);
    head_sum_.resize(config_.head_output_size(), max_frames);
    head_out_.resize(config_.head_size, max_frames);
    for (auto& layer : layers_) layer.prepare(max_frames);
    head_rechannel_->prepare(max_frames);
}

void LayerArray::process(ConstSignal x, ConstSignal condition, const ConstSignal* head_in, int frames,
                         bool residual_wanted) noexcept {
    const Signal sum = head_sum_.signal();
    const std::int64_t rows = config_.head_output_size();
    if (head_in != nullptr) {
        copy_rows(*head_in, sum, rows, frames);
    } else {
        for (std::int64_t c = 0; c < rows; ++c) std::memset(sum.row(c), 0, static_cast<std::size_t>(frames) * 4);
    }
    // Each layer's output goes straight into the next layer's input; the last one's is the residual.
    rechannel_.process(x, layers_.front().input(frames), frames);
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        const bool last = i + 1 == layers_.size();
        const Signal next = last ? residual_.signal() : layers_[i + 1].input(frames);
        layers_[i].process(condition, next, sum, frames, !last || residual_wanted);
    }
    head_rechannel_->process(sum, head_out_.signal(), frames);
}

long LayerArray::receptive_field() const {
    long rf = head_rechannel_->history();
    for (const auto& layer : layers_) rf += layer.conv().history();
    return rf;
}

// ---- PostHead ----

PostHead::PostHead(const PostHeadConfig& config, WeightCursor& weights, const std::string& what)
    : activation_(config.activation) {
    int in = config.in_channels;
    for (std::size_t i = 0; i < config.kernel_sizes.size(); ++i) {
        const int out = i + 1 == config.kernel_sizes.size() ? config.out_channels : config.channels;
        convs_.emplace_back(ConvShape{in, out, config.kernel_sizes[i], 1, 1, true}, weights,
                            fmt::format("{} head conv {}", what, i));
        in = out;
    }
}

void PostHead::prepare(int max_frames) {
    outputs_.resize(convs_.size());
    for (std::size_t i = 0; i < convs_.size(); ++i) {
        convs_[i].prepare(max_frames);
        outputs_[i].resize(convs_[i].out_channels(), max_frames);
    }
}

void PostHead::process(Signal x, int frames) noexcept {
    for (std::size_t i = 0; i < convs_.size(); ++i) {
        const Signal in = i == 0 ? x : outputs_[i - 1].signal();
        activation_.apply(in, convs_[i].in_channels(), frames);
        convs_[i].process(in, outputs_[i].signal(), frames);
    }
}

long PostHead::receptive_field() const {
    long rf = 1;
    for (const auto& conv : convs_) rf += conv.kernel_size() - 1;
    return rf;
}

// ---- WaveNet ----

WaveNet::WaveNet(const WaveNetConfig& config, std::span<const float> weights, const std::string& source,
                 std::unique_ptr<Model> condition_dsp)
    : in_channels_(config.in_channels), head_scale_(config.head_scale), condition_dsp_(std::move(condition_dsp)) {
    const int condition_channels = condition_dsp_ ? condition_dsp_->out_channels() : in_channels_;
    if (condition_dsp_ && condition_dsp_->in_channels() != in_channels_)
        fail_format("{}: config.condition_dsp: takes {} channels but the WaveNet has {}", source,
                    condition_dsp_->in_channels(), in_channels_);
    WeightCursor cursor(weights, source);
    for (std::size_t i = 0; i < config.arrays.size(); ++i) {
        const LayerArrayConfig& a = config.arrays[i];
        const std::string what = fmt::format("layer array {}", i);
        if (a.condition_size != condition_channels)
            fail_format("{}: config.layers[{}].condition_size is {} but the condition has {} channels",
                        source, i, a.condition_size, condition_channels);
        const int input = i == 0 ? in_channels_ : config.arrays[i - 1].channels;
        if (a.input_size != input)
            fail_format("{}: config.layers[{}].input_size is {} but its input has {} channels",
                        source, i, a.input_size, input);
        // Core refuses this too: an array's channels carry on from the previous array's head.
        if (i > 0 && a.channels != config.arrays[i - 1].head_size)
            fail_format("{}: config.layers[{}].channels is {} but the previous array's head size is {}",
                        source, i, a.channels, config.arrays[i - 1].head_size);
        if (i > 0 && config.arrays[i - 1].head_size != a.head_output_size())
            fail_format("{}: config.layers[{}]: the previous array's head size {} does not match "
                        "this array's head input {}",
                        source, i, config.arrays[i - 1].head_size, a.head_output_size());
        arrays_.emplace_back(a, cursor, what);
    }
    if (config.head) head_.emplace(*config.head, cursor, "post-stack head");
    head_in_channels_ = config.arrays.back().head_size;
    head_scale_ = cursor.take_one("head_scale");  // the last weight overrides config.head_scale, as in Core
    cursor.expect_end();

    out_channels_ = config.head ? config.head->out_channels : config.arrays.back().head_size;
    std::size_t layers = 0;
    std::vector<int> channels;
    for (const auto& a : config.arrays) {
        layers += a.layers.size();
        channels.push_back(a.channels);
    }
    summary_ = fmt::format("WaveNet: {} layer array(s) of {} channels, {} layers, {} weights{}{}",
                           config.arrays.size(), fmt::join(channels, "/"), layers, weights.size(),
                           condition_dsp_ ? ", with a condition DSP" : "", config.head ? ", post-stack head" : "");
}

void WaveNet::prepare(int max_frames) {
    if (condition_dsp_) {
        condition_dsp_->prepare(max_frames);
        condition_.resize(condition_dsp_->out_channels(), max_frames);
    }
    for (auto& a : arrays_) a.prepare(max_frames);
    if (head_) {
        head_->prepare(max_frames);
        head_scratch_.resize(head_in_channels_, max_frames);
    }
}

void WaveNet::process(ConstSignal in, Signal out, int frames) noexcept {
    ConstSignal condition = in;
    if (condition_dsp_) {
        condition_dsp_->process(in, condition_.signal(), frames);
        condition = condition_.signal();
    }
    for (std::size_t i = 0; i < arrays_.size(); ++i) {
        const bool residual_wanted = i + 1 < arrays_.size();  // the next array's input
        if (i == 0) {
            arrays_[i].process(in, condition, nullptr, frames, residual_wanted);
        } else {
            const ConstSignal head_in = arrays_[i - 1].head();
            arrays_[i].process(arrays_[i - 1].residual(), condition, &head_in, frames, residual_wanted);
        }
    }
    if (head_) {
        scale_rows(arrays_.back().head(), head_scale_, head_scratch_.signal(), head_scratch_.channels(), frames);
        head_->process(head_scratch_.signal(), frames);
        copy_rows(head_->output(), out, out_channels(), frames);
    } else {
        scale_rows(arrays_.back().head(), head_scale_, out, out_channels(), frames);
    }
}

// Core's mPrewarmSamples: 1 (or the condition DSP's count), plus each array's receptive
// field, plus the post-stack head's.
long WaveNet::prewarm_samples() const {
    long n = condition_dsp_ ? condition_dsp_->prewarm_samples() : 1;
    for (const auto& a : arrays_) n += a.receptive_field();
    if (head_) n += head_->receptive_field() - 1;
    return n;
}

std::string WaveNet::describe() const { return summary_; }

}  // namespace forge::nam
