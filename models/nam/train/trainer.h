// Training a NAM model on a capture, as the reference trainer's defaults do
// (nam/train/core.py, train()): Adam at lr 0.004 with exponential decay (gamma = 1 - 0.007
// per epoch), batches of 16 windows of ny = 8192 outputs, loss MSE + pre-emphasized
// multi-resolution STFT, validation ESR after every epoch, and the best epoch's weights
// kept (its ModelCheckpoint on val_loss).
#pragma once

#include "models/nam/nam_file.h"
#include "models/nam/train/losses.h"
#include "models/nam/train/presets.h"
#include "models/nam/train/training_data.h"

#include <cstdint>
#include <functional>

namespace forge::nam::train {

struct TrainOptions {
    Preset preset = Preset::Standard;
    int epochs = 100;
    int batch = 16;
    long ny = 8192;
    float lr = 0.004f;
    float lr_decay = 0.007f;  // per epoch: lr <- lr · (1 - lr_decay)
    std::uint64_t seed = 0;
    LossOptions loss;
    double sample_rate = 48000.0;
};

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
};

struct TrainResult {
    NamFile model;            // the best epoch's weights, metadata.validation_esr set
    double validation_esr = 0.0;
    int best_epoch = 0;
};

TrainResult train_wavenet(const TrainingData& data, const TrainOptions& options, const TrainCallbacks& callbacks = {});

// NAM's words for an ESR (nam/train/core.py, _print_nasty_checks' successor): < 0.01 great,
// < 0.035 not bad, < 0.1 might sound ok, < 0.3 probably won't sound great, else wrong.
const char* esr_quality(double esr);

}  // namespace forge::nam::train
