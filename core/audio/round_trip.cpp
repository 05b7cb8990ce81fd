#include "core/audio/round_trip.h"

#include <algorithm>
#include <cmath>

namespace forge::audio {
namespace {

// Loudness per frame of `hop` samples in dB, standardized (zero mean, unit variance) so the
// correlation compares shapes, not levels: an amp changes the level and squeezes the
// dynamics, but loud stays louder than quiet and silence stays silence.
std::vector<double> envelope(std::span<const float> x, int hop) {
    const std::size_t frames = x.size() / static_cast<std::size_t>(hop);
    std::vector<double> e(frames);
    for (std::size_t f = 0; f < frames; ++f) {
        double power = 0.0;
        for (int i = 0; i < hop; ++i) {
            const double v = x[f * static_cast<std::size_t>(hop) + static_cast<std::size_t>(i)];
            power += v * v;
        }
        e[f] = 10.0 * std::log10(power / hop + 1e-10);  // floor: -100 dB
    }
    double mean = 0.0, variance = 0.0;
    for (double v : e) mean += v;
    mean /= std::max<std::size_t>(frames, 1);
    for (double v : e) variance += (v - mean) * (v - mean);
    const double scale = variance > 0.0 ? 1.0 / std::sqrt(variance / static_cast<double>(frames)) : 0.0;
    for (double& v : e) v = (v - mean) * scale;
    return e;
}

}  // namespace

DelayEstimate estimate_delay(std::span<const float> played, std::span<const float> recorded, long max_delay, int hop) {
    check(hop > 0 && max_delay >= 0, "estimate_delay: hop {} and max_delay {}", hop, max_delay);
    const std::vector<double> p = envelope(played, hop), r = envelope(recorded, hop);
    const long max_lag = max_delay / hop;
    DelayEstimate best{0, -2.0};
    for (long lag = 0; lag <= max_lag; ++lag) {
        const long overlap = std::min(static_cast<long>(p.size()), static_cast<long>(r.size()) - lag);
        if (overlap <= 0) break;
        double dot = 0.0, pp = 0.0, rr = 0.0;
        for (long t = 0; t < overlap; ++t) {
            const double a = p[static_cast<std::size_t>(t)], b = r[static_cast<std::size_t>(t + lag)];
            dot += a * b;
            pp += a * a;
            rr += b * b;
        }
        const double correlation = pp > 0.0 && rr > 0.0 ? dot / std::sqrt(pp * rr) : 0.0;
        if (correlation > best.correlation) best = {lag * hop, correlation};
    }
    return best;
}

RoundTrip align_round_trip(std::span<const float> signal, std::span<const float> recording,
                           const RoundTripOptions& options, int sample_rate) {
    check(recording.size() >= signal.size(), "the recording ({} samples) is shorter than the signal ({})",
          recording.size(), signal.size());
    float peak = 0.0f;
    bool finite = true;
    for (float v : recording) {
        peak = std::max(peak, std::abs(v));
        finite = finite && std::isfinite(v);
    }
    // An interface delivers samples within a few times full scale; anything else (a broken
    // driver, a device that hands out uninitialized memory) is not a recording.
    check(finite && peak < 100.0f, "the recording is not audio (peak {:g}{}): check the input device", peak,
          finite ? "" : ", non-finite samples");
    check(peak > 1e-4f, "the recording is silent (peak {:.1f} dBFS): is the amp's output connected to the input, and "
                        "is its level up?", 20.0 * std::log10(std::max(peak, 1e-12f)));

    const auto max_delay = static_cast<long>(options.max_delay_seconds * sample_rate);
    RoundTrip result;
    result.estimate = estimate_delay(signal, recording, max_delay, options.hop);
    check(result.estimate.correlation > 0.5,
          "the recording does not follow the capture signal (envelope correlation {:.2f}, best at {:.1f} ms): check the "
          "connections, the input channel and the levels",
          result.estimate.correlation, 1000.0 * static_cast<double>(result.estimate.delay) / sample_rate);
    result.advanced = std::max(0L, result.estimate.delay - static_cast<long>(options.margin_hops) * options.hop);
    const auto begin = recording.begin() + result.advanced;
    result.recording.assign(begin, begin + static_cast<std::ptrdiff_t>(signal.size()));
    return result;
}

RoundTrip record_round_trip(DuplexDevice& device, std::span<const float> signal, const ProgressFn& progress,
                            const RoundTripOptions& options) {
    const auto tail = static_cast<std::size_t>(options.max_delay_seconds * device.sample_rate());
    std::vector<float> played(signal.begin(), signal.end());
    played.resize(signal.size() + tail, 0.0f);
    std::vector<float> recorded(played.size(), 0.0f);
    device.play_and_record(played, recorded, progress);
    return align_round_trip(signal, recorded, options, device.sample_rate());
}

}  // namespace forge::audio
