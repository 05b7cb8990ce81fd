// Training a NAM model on a capture, as the reference trainer's defaults do
// (nam/train/core.py, train()): batches of 16 windows of ny = 8192 outputs; for a WaveNet
// Adam at lr 0.004 with exponential decay (gamma = 1 - 0.007 per epoch) and loss MSE +
// pre-emphasized multi-resolution STFT; for an LSTM lr 0.01, gamma 0.995, the first 4096
// outputs of each window (the burn-in) left out of the loss, and a pre-emphasized MSE term
// added. Validation ESR after every epoch; the best epoch's weights are kept (its
// ModelCheckpoint on val_loss).
#pragma once

#include "models/nam/nam_file.h"
#include "models/nam/train/losses.h"
#include "models/nam/train/presets.h"
#include "models/nam/train/trainable_model.h"
#include "models/nam/train/training_data.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace forge::nam::train {

enum class Architecture { WaveNet, Lstm };

// Exponential: the reference's ExponentialLR, lr · (1 - lr_decay) after every epoch.
// Cosine: per step, a linear warmup over warmup_steps to lr, then a cosine down to 0 at the
// last step of the run; for short runs (tests, demos), where ending at a small rate matters
// more than the reference's slow decay.
enum class LrSchedule { Exponential, Cosine };

struct TrainOptions {
    Architecture architecture = Architecture::WaveNet;
    Preset preset = Preset::Standard;
    int epochs = 100;
    int batch = 16;
    long ny = 8192;
    float lr = 0.004f;
    float lr_decay = 0.007f;  // per epoch: lr <- lr · (1 - lr_decay)
    LrSchedule schedule = LrSchedule::Exponential;
    long warmup_steps = 0;    // Cosine only
    long mask_first = 0;      // outputs at the start of each window the loss leaves out
    std::uint64_t seed = 0;
    LossOptions loss;
    double sample_rate = 48000.0;
};

// The reference's settings for an architecture (the defaults above are the WaveNet's).
TrainOptions reference_options(Architecture architecture, Preset preset);

// A freshly initialized model of the options' architecture and preset.
std::unique_ptr<TrainableModel> make_trainable_model(const TrainOptions& options);

struct StepProgress {
    int epoch, epochs;
    long step, steps;  // within the epoch
    double loss;
};

struct EpochReport {
    int epoch, epochs;
    double train_loss;       // mean over the epoch's steps
    double validation_esr;
    double best_esr;
    bool improved;
    float lr;
};

struct TrainCallbacks {
    std::function<void(const StepProgress&)> on_step;
    std::function<void(const EpochReport&)> on_epoch;
    // Asked after each step (Ctrl-C in app/): true ends training there; the partial epoch is
    // validated like a whole one and the best weights so far are exported.
    std::function<bool()> stop_requested;
};

struct TrainResult {
    NamFile model;            // the best epoch's weights, metadata.validation_esr set
    double validation_esr = 0.0;
    int best_epoch = 0;
    int interrupted_at_epoch = 0;  // 0: all epochs ran; else the epoch stop_requested ended training in
};

// Train `model` in place (it ends with the best epoch's weights) and export it.
TrainResult train_model(TrainableModel& model, const TrainingData& data, const TrainOptions& options,
                        const TrainCallbacks& callbacks = {});
// The same on make_trainable_model(options).
TrainResult train_model(const TrainingData& data, const TrainOptions& options, const TrainCallbacks& callbacks = {});

// NAM's words for an ESR (nam/train/core.py, _print_nasty_checks' successor): < 0.01 great,
// < 0.035 not bad, < 0.1 might sound ok, < 0.3 probably won't sound great, else wrong.
const char* esr_quality(double esr);

}  // namespace forge::nam::train
