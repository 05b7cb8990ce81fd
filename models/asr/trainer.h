// `forge train asr`: a FastConformer-CTC speech model trained from a manifest, end to end.
//
//   manifest (manifest.h) -> audio, mono at 16 kHz (core/audio) -> NeMo log-mel (log_mel.h,
//   with the Slaney filterbank of mel_filterbank.h) -> batches of similar duration, padded,
//   with lengths (batching.h) -> SpecAugment (spec_augment.h) -> FastConformerEncoder ->
//   CTC head -> log-softmax -> ag::ctc_loss -> AdamW with warmup + cosine, gradient clipping
//   -> DIR/model.gguf in the Parakeet layout (parakeet_writer.h), which forge transcribe reads.
//
// DIR holds log.jsonl (one JSON object per step: step, loss, lr, grad_norm, audio seconds per
// second), checkpoint.json + checkpoint.N.safetensors (core/checkpoint/checkpoint.h: written
// atomically every checkpoint_every steps, and read back by --resume) and, at the end,
// model.gguf (atomic; the vocabulary is in it).
//
// Batch norm: the encoder's convolution modules use nn::BatchNorm in inference form, with
// running statistics fixed at mean 0, variance 1 (its weight and bias train). It is then a
// learned per-channel affine map, which is what a trained Parakeet file's batch norm also is
// at inference; training with batch statistics (and their VJP) would need running averages
// and a train/eval switch in nn/, which forge's small CTC models have not needed.
#pragma once

#include "models/asr/spec_augment.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

namespace forge::asr {

struct AsrTrainConfig {
    std::filesystem::path manifest;           // training utterances (manifest.h)
    std::filesystem::path out_dir = "asr-run";
    std::int32_t vocab_size = 256;            // subword pieces learned from the transcripts (28: characters)
    std::int64_t n_mels = 80, d_model = 144, n_layers = 4, n_heads = 4, ff_dim = 576, conv_kernel = 9;
    std::int64_t subsampling_channels = 144;
    std::int64_t steps = 1000;
    double batch_seconds = 60.0;              // padded audio per batch (batching.h)
    float lr = 2e-3f;
    std::int64_t warmup = 100;
    float weight_decay = 1e-3f;
    float clip = 1.0f;                        // gradient norm bound
    bool spec_augment = true;
    bool shortest_first = false;              // SortaGrad: the first epoch in order of duration
    SpecAugmentOptions augment;
    std::int64_t checkpoint_every = 100;
    bool resume = false;
    std::uint64_t seed = 0;
    // Asked after each step (Ctrl-C in app/): true ends the run there with a checkpoint, as a
    // periodic one, and no export; --resume continues it.
    std::function<bool()> stop_requested;
};

struct AsrStepReport {
    std::int64_t step = 0, total_steps = 0;
    double loss = 0.0, lr = 0.0, grad_norm = 0.0;
    double audio_per_s = 0.0;  // seconds of audio trained on per second
    double elapsed_s = 0.0;
};

struct AsrTrainResult {
    std::int64_t steps = 0, parameters = 0, utterances = 0, skipped = 0;
    double first_loss = 0.0, loss = 0.0, seconds = 0.0;
    std::filesystem::path model;                 // empty when interrupted
    std::optional<std::int64_t> interrupted_at;  // the step stop_requested ended the run after
};

using AsrReportFn = std::function<void(const AsrStepReport&)>;
// Called after each utterance is read and turned into features, before training starts.
using AsrFeaturizeFn = std::function<void(std::size_t done, std::size_t total)>;

// Errors (a bad manifest, audio file or setting) name the file or the setting.
AsrTrainResult train_asr(const AsrTrainConfig& config, const AsrReportFn& report,
                         const AsrFeaturizeFn& featurized = {});

}  // namespace forge::asr
