#include "models/nam/live/live_engine.h"

#include "core/error.h"
#include "models/nam/factory.h"
#include "models/nam/loudness.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace forge::nam {
namespace {

float peak(std::span<const float> x) noexcept {
    float p = 0.0f;
    for (float v : x) p = std::max(p, std::abs(v));
    return p;
}

std::size_t ring_slots(double seconds, double rate) { return static_cast<std::size_t>(std::ceil(seconds * rate)); }

// Reports come once per callback; a callback has at least one frame and usually max_block.
std::size_t report_slots(const LiveOptions& o) {
    return ring_slots(o.ring_seconds, o.sample_rate) / static_cast<std::size_t>(std::max(1, o.max_block / 4)) + 16;
}

// A bridge when the model's rate differs from the device's by more than rounding.
std::unique_ptr<RateBridge> bridge_for(const NamFile& file, const LiveOptions& o) {
    if (!file.sample_rate || std::abs(*file.sample_rate - o.sample_rate) <= 0.5) return nullptr;
    return std::make_unique<RateBridge>(o.sample_rate, *file.sample_rate, o.max_block);
}

}  // namespace

LiveEngine::LiveEngine(const NamFile& file, const LiveOptions& options)
    : bridge_(bridge_for(file, options)),
      options_(options),
      model_rate_(file.sample_rate),
      input_gain_(static_cast<float>(amplitude_of_db(options.render.input_gain_db))),
      output_gain_(static_cast<float>(amplitude_of_db(options.output_gain_db))),
      normalization_gain_(options.render.normalize ? nam::normalization_gain(file.metadata) : std::nullopt),
      record_(options.record),
      dry_(static_cast<std::size_t>(options.max_block)),
      frames_(static_cast<std::size_t>(options.max_block)),
      reports_(report_slots(options)),
      recording_(options.record ? ring_slots(options.ring_seconds, options.sample_rate) : 1) {
    check(options.sample_rate > 0 && options.ring_seconds > 0, "live engine: the rings need a rate and a duration");
    model_ = prepare_model(file);
    scaled_.resize(static_cast<std::size_t>(model_->engine.max_block()));
    incoming_out_.resize(scaled_.size());
}

// The pointers in flight are owned: adopted here to be freed.
LiveEngine::~LiveEngine() {
    std::unique_ptr<LiveModel>(incoming_.exchange(nullptr));
    std::unique_ptr<LiveModel>(retired_.exchange(nullptr));
}

std::unique_ptr<LiveModel> LiveEngine::prepare_model(const NamFile& file) const {
    const bool same_rate = file.sample_rate.has_value() == model_rate_.has_value() &&
                           (!file.sample_rate || std::abs(*file.sample_rate - *model_rate_) <= 0.5);
    check(same_rate, "the new model's sample rate ({} Hz) is not the playing one's ({} Hz)",
          file.sample_rate.value_or(0.0), model_rate_.value_or(0.0));
    const int block = bridge_ ? bridge_->max_model_block() : options_.max_block;
    const std::optional<double> normalization =
        options_.render.normalize ? nam::normalization_gain(file.metadata) : std::nullopt;
    return std::make_unique<LiveModel>(Engine(make_model(file, options_.render.model), block),
                                       static_cast<float>(normalization.value_or(1.0)));
}

bool LiveEngine::offer(std::unique_ptr<LiveModel> next) {
    collect_retired();
    if (incoming_.load(std::memory_order_acquire) != nullptr || retired_.load(std::memory_order_acquire) != nullptr)
        return false;
    incoming_.store(next.release(), std::memory_order_release);
    return true;
}

void LiveEngine::collect_retired() { std::unique_ptr<LiveModel>(retired_.exchange(nullptr, std::memory_order_acq_rel)); }

void LiveEngine::process(std::span<const float> in, std::span<float> out, bool dropout) noexcept {
    const auto start = std::chrono::steady_clock::now();
    BlockReport report;
    report.frames = static_cast<std::uint32_t>(in.size());
    report.dropout = dropout;
    const std::size_t block = dry_.size();  // the device's block (the model's may be longer when resampling)
    for (std::size_t at = 0; at < in.size(); at += block) {
        const std::size_t n = std::min(block, in.size() - at);
        process_block(in.subspan(at, n), out.subspan(at, n), report);
    }
    report.busy_seconds = std::chrono::duration<float>(std::chrono::steady_clock::now() - start).count();
    reports_.push(report);  // a full ring (main thread stalled) drops the report, never blocks
}

void LiveEngine::process_block(std::span<const float> raw, std::span<float> out, BlockReport& report) noexcept {
    // A device can deliver garbage (ALSA's null device does): a NaN or infinity would stay in
    // the model's state (conv history, LSTM cell) for good, so it enters as silence.
    const std::span<float> in(dry_.data(), raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) in[i] = std::isfinite(raw[i]) ? raw[i] : 0.0f;
    if (bridge_) bridge_->process(in, out, [this](std::span<const float> x, std::span<float> y) { run_model(x, y); });
    else run_model(in, out);
    for (float& y : out) y *= output_gain_;
    report.input_peak = std::max(report.input_peak, peak(in));
    report.output_peak = std::max(report.output_peak, peak(out));
    if (!record_) return;
    for (std::size_t i = 0; i < in.size(); ++i) frames_[i] = {in[i], out[i]};
    const std::size_t kept = recording_.push(std::span<const RecordedFrame>(frames_.data(), in.size()));
    report.recording_lost += static_cast<std::uint32_t>(in.size() - kept);
}

void LiveEngine::run_model(std::span<const float> in, std::span<float> out) noexcept {
    const std::span<float> scaled(scaled_.data(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) scaled[i] = input_gain_ * in[i];
    play(*model_, scaled, out);
    LiveModel* next = incoming_.load(std::memory_order_relaxed) ? incoming_.exchange(nullptr, std::memory_order_acq_rel) : nullptr;
    if (!next) return;
    // A new model: fade from the old one's output to the new one's over this block, so the
    // switch makes no step; the old model goes back to the main thread to be freed.
    const std::span<float> fresh(incoming_out_.data(), in.size());
    play(*next, scaled, fresh);
    const float n = static_cast<float>(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        const float t = static_cast<float>(i + 1) / n;
        out[i] = (1.0f - t) * out[i] + t * fresh[i];
    }
    retired_.store(model_.release(), std::memory_order_release);
    model_.reset(next);
}

void LiveEngine::play(LiveModel& model, std::span<const float> in, std::span<float> out) noexcept {
    model.engine.process(in, out);
    for (float& y : out) y *= model.gain;
}

void LiveEngine::drain_recording(std::vector<float>& dry, std::vector<float>& wet) {
    drained_.resize(recording_.capacity());
    for (std::size_t n; (n = recording_.pop(drained_)) > 0;) {
        for (std::size_t i = 0; i < n; ++i) {
            dry.push_back(drained_[i].dry);
            wet.push_back(drained_[i].wet);
        }
    }
}

}  // namespace forge::nam
