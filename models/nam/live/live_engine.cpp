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
      engine_(make_model(file, options.render.model), bridge_ ? bridge_->max_model_block() : options.max_block),
      input_gain_(static_cast<float>(amplitude_of_db(options.render.input_gain_db))),
      output_gain_(static_cast<float>(amplitude_of_db(options.output_gain_db))),
      normalization_gain_(options.render.normalize ? nam::normalization_gain(file.metadata) : std::nullopt),
      record_(options.record),
      dry_(static_cast<std::size_t>(options.max_block)),
      scaled_(static_cast<std::size_t>(engine_.max_block())),
      frames_(static_cast<std::size_t>(options.max_block)),
      reports_(report_slots(options)),
      recording_(options.record ? ring_slots(options.ring_seconds, options.sample_rate) : 1) {
    check(options.sample_rate > 0 && options.ring_seconds > 0, "live engine: the rings need a rate and a duration");
    if (normalization_gain_) output_gain_ *= static_cast<float>(*normalization_gain_);
}

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
    engine_.process(scaled, out);
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
