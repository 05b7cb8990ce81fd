#include "models/nam/train/data_checks.h"

#include "models/nam/train/losses.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace forge::nam::train {
namespace {

constexpr double kReplicateEsrThreshold = 0.01;  // reference: esr_replicate_threshold
constexpr float kSilence = 1e-4f;
constexpr float kClip = 0.999f;

DataCheck lengths(std::size_t in, std::size_t out) {
    if (out >= in) return {"lengths", true, out > in ? fmt::format("output is {} samples longer; trimmed", out - in) : ""};
    return {"lengths", false,
            fmt::format("the output has {} samples but the input {}: record the whole capture signal", out, in)};
}

DataCheck replicate(std::span<const float> y, const CaptureLayout& l, double& esr_out) {
    const auto n = static_cast<std::size_t>(l.validation_length);
    if (y.size() < static_cast<std::size_t>(l.validation_begin) + n) return {"replicate ESR", false, "output too short"};
    esr_out = esr(y.subspan(0, n), y.subspan(static_cast<std::size_t>(l.validation_begin), n));
    if (esr_out < kReplicateEsrThreshold) return {"replicate ESR", true, fmt::format("{:.6f}", esr_out)};
    return {"replicate ESR", false,
            fmt::format("the two validation clips of the output differ (ESR {:.4f} >= {}): the gear drifted, is noisy or "
                        "time-varying (modulation, noise gate). Try again with it steadier, or --ignore-checks",
                        esr_out, kReplicateEsrThreshold)};
}

bool silent_before(std::span<const float> x, long at, long samples) {
    if (at < samples) return false;
    return std::all_of(x.begin() + (at - samples), x.begin() + at, [](float v) { return std::abs(v) < kSilence; });
}

DataCheck pre_silence(std::span<const float> x, const CaptureLayout& l) {
    const auto samples = static_cast<long>(l.pre_silence_seconds * l.rate);
    for (long at : {l.train_begin, l.validation_begin})
        if (!silent_before(x, at, samples))
            return {"silence before splits", false,
                    fmt::format("the input is not silent for {} s before sample {}: this is not an unmodified capture "
                                "signal", l.pre_silence_seconds, at)};
    return {"silence before splits", true, ""};
}

DataCheck clipping(std::span<const float> y) {
    float peak = 0.0f;
    for (float v : y) peak = std::max(peak, std::abs(v));
    if (peak < kClip) return {"clipping", true, fmt::format("peak {:.3f}", peak)};
    return {"clipping", false,
            fmt::format("the output reaches {:.4f} of full scale: the recording clipped. Lower the interface's input "
                        "gain and record again", peak)};
}

}  // namespace

bool DataCheckReport::passed() const {
    return std::all_of(checks.begin(), checks.end(), [](const DataCheck& c) { return c.passed; });
}

DataCheckReport check_capture(std::span<const float> input, std::span<const float> output, const CaptureLayout& layout) {
    DataCheckReport report;
    report.checks.push_back(lengths(input.size(), output.size()));
    report.checks.push_back(replicate(output, layout, report.replicate_esr));
    report.checks.push_back(pre_silence(input, layout));
    report.checks.push_back(clipping(output));
    return report;
}

}  // namespace forge::nam::train
