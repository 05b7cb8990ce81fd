#include "models/nam/train/capture_training.h"

#include "core/error.h"
#include "models/nam/loudness.h"
#include "models/nam/train/architecture_name.h"
#include "models/nam/train/training_data.h"

namespace forge::nam::train {
namespace {

// Both known capture signals are 48 kHz; said first, since a resampled file is the likeliest
// reason recognition fails.
CaptureLayout recognized_layout(std::span<const float> di, int rate, const std::string& input_name) {
    check(rate == 48000, "{} is {} Hz: the capture signal is 48 kHz (play and record it at 48 kHz)", input_name, rate);
    CaptureLayout layout = recognize_capture(di, rate);
    check(!layout.name.empty(),
          "{}: not a known capture signal ({:.2f} s; expected forge nam capture-signal's 147.5 s or 16.5 s --short "
          "output, unedited, or NAM's v3_0_0.wav)",
          input_name, static_cast<double>(di.size()) / rate);
    return layout;
}

int chosen_latency(const LatencyCalibration& calibration, const CaptureTrainingOptions& options) {
    if (options.latency) return *options.latency;
    check(calibration.recommended.has_value(), "latency calibration failed ({}); pass --latency N", calibration.warning);
    return *calibration.recommended;
}

TrainOptions train_options(const CaptureTrainingOptions& o, int rate) {
    const ArchitectureChoice choice = parse_architecture(o.architecture);
    TrainOptions options = reference_options(choice.architecture, choice.preset);
    options.epochs = o.epochs;
    options.batch = o.batch;
    options.ny = o.ny;
    if (o.lr) options.lr = *o.lr;
    options.seed = o.seed;
    options.sample_rate = rate;
    return options;
}

void add_metadata(NamFile& file, const GearMetadata& gear, int latency) {
    nlohmann::json& raw = file.metadata.raw;
    for (const auto& [key, value] : {std::pair{"name", gear.name}, {"modeled_by", gear.modeled_by}, {"gear_make", gear.gear_make},
                                     {"gear_model", gear.gear_model}, {"gear_type", gear.gear_type}, {"tone_type", gear.tone_type}})
        if (!value.empty()) raw[key] = value;
    file.metadata.latency = latency;
}

template <class Callback, class... Args>
void tell(const Callback& callback, const Args&... args) {
    if (callback) callback(args...);
}

}  // namespace

TrainResult train_on_capture(std::span<const float> di, std::span<const float> reamp, int rate,
                             const std::string& input_name, const CaptureTrainingOptions& options,
                             const CaptureTrainingCallbacks& callbacks) {
    const TrainOptions training = train_options(options, rate);  // a bad --arch fails before any work
    const CaptureLayout layout = recognized_layout(di, rate, input_name);
    tell(callbacks.on_layout, layout);
    const DataCheckReport report = check_capture(di, reamp, layout);
    tell(callbacks.on_checks, report);
    if (!report.passed() && !options.ignore_checks) fail("the capture failed its checks (see above); --ignore-checks trains anyway");
    const LatencyCalibration calibration = calibrate_latency(reamp, layout);
    tell(callbacks.on_latency, calibration);
    const int latency = chosen_latency(calibration, options);

    TrainResult result = train_model(split_capture(di, reamp, layout, latency), training, callbacks.training);
    add_metadata(result.model, options.metadata, latency);
    add_loudness_metadata(result.model);  // as the reference trainer's export
    return result;
}

}  // namespace forge::nam::train
