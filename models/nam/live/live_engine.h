// Playing through a .nam model in real time: the work of an audio callback, block by block.
//
// process() is called on the audio thread. It applies the input gain, runs the model (Engine,
// prewarmed in the constructor), applies the output gain (the --normalize gain of
// `forge nam run` times the output gain) and hands a BlockReport, and with recording on the
// dry and wet frames, to the main thread through lock-free rings. It never allocates, locks
// or makes a system call (test/models/nam/live_alloc_test.cpp counts allocations); the clock
// it reads for the CPU load is steady_clock, which Linux serves from the vDSO without
// entering the kernel.
//
// The main thread drains the rings (drain_reports, drain_recording) often enough that they
// do not fill: each holds several seconds.
#pragma once

#include "core/spsc_ring.h"
#include "models/nam/audio_render.h"
#include "models/nam/engine.h"
#include "models/nam/live/block_report.h"
#include "models/nam/live/rate_bridge.h"
#include "models/nam/nam_file.h"

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace forge::nam {

struct LiveOptions {
    RenderOptions render;          // model options, input gain and --normalize, as `forge nam run`
    double output_gain_db = 0.0;
    int max_block = 64;            // the largest block the callback is given
    bool record = false;           // keep the dry and wet signals for drain_recording
    double ring_seconds = 4.0;     // how much the rings hold at `sample_rate`
    double sample_rate = 48000.0;  // the device's; a model at another rate runs behind a RateBridge
};

// One playable model: the prewarmed engine and its --normalize gain (1 without).
struct LiveModel {
    Engine engine;
    float gain = 1.0f;
};

class LiveEngine {
public:
    // Builds and prewarms the model. Allocates.
    LiveEngine(const NamFile& file, const LiveOptions& options);

    // Audio thread: out[i] = output_gain * model(input_gain * in[i]); out.size() == in.size(),
    // any length (split into blocks of max_block internally). A NaN or infinite input sample
    // is taken as 0 (also in the recording).
    void process(std::span<const float> in, std::span<float> out, bool dropout) noexcept;

    // Main thread: swapping the model while playing (forge nam live's `r` key). prepare_model
    // builds and prewarms another model the way the constructor did (it allocates; the same
    // sample rate as the one playing, else an error); offer hands it to the callback, which
    // crossfades from the old model's output to the new one's over one block and hands the
    // old model back: collect_retired frees it here, never on the audio thread. offer refuses
    // (false) while a swap is under way.
    std::unique_ptr<LiveModel> prepare_model(const NamFile& file) const;
    bool offer(std::unique_ptr<LiveModel> next);
    void collect_retired();
    ~LiveEngine();
    LiveEngine(const LiveEngine&) = delete;
    LiveEngine& operator=(const LiveEngine&) = delete;

    // Main thread: the reports and recorded frames since the last call, oldest first.
    std::size_t drain_reports(std::span<BlockReport> into) { return reports_.pop(into); }
    void drain_recording(std::vector<float>& dry, std::vector<float>& wet);

    // The --normalize gain, when asked and the model has a loudness.
    std::optional<double> normalization_gain() const { return normalization_gain_; }
    // Whether the model runs at another rate than the device (resampled both ways), and the
    // delay that adds, in frames at the device's rate.
    bool resampling() const { return bridge_ != nullptr; }
    int resampling_latency_frames() const { return bridge_ ? bridge_->latency_frames() : 0; }

private:
    void process_block(std::span<const float> in, std::span<float> out, BlockReport& report) noexcept;
    void run_model(std::span<const float> in, std::span<float> out) noexcept;
    static void play(LiveModel& model, std::span<const float> in, std::span<float> out) noexcept;

    std::unique_ptr<RateBridge> bridge_;  // null when the model runs at the device's rate
    LiveOptions options_;
    std::optional<double> model_rate_;
    std::unique_ptr<LiveModel> model_;    // the callback's
    std::atomic<LiveModel*> incoming_{nullptr}, retired_{nullptr};
    static_assert(std::atomic<LiveModel*>::is_always_lock_free);
    float input_gain_, output_gain_;
    std::optional<double> normalization_gain_;
    bool record_;
    std::vector<float> dry_;               // the block's input, non-finite samples zeroed
    std::vector<float> scaled_;            // the model's input block after the input gain
    std::vector<float> incoming_out_;      // the new model's output while crossfading
    std::vector<RecordedFrame> frames_;    // the block's frames on their way to the ring
    SpscRing<BlockReport> reports_;
    SpscRing<RecordedFrame> recording_;
    std::vector<RecordedFrame> drained_;   // main thread's buffer for drain_recording
};

}  // namespace forge::nam
