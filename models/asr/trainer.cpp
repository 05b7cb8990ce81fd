#include "models/asr/trainer.h"

#include "core/audio/audio_file.h"
#include "core/audio/resample.h"
#include "core/autograd/ag.h"
#include "core/checkpoint/step_log.h"
#include "core/checkpoint/checkpoint.h"
#include "core/error.h"
#include "core/optim/adam.h"
#include "core/optim/clip.h"
#include "core/optim/schedule.h"
#include "core/random/counter_rng.h"
#include "models/asr/batching.h"
#include "models/asr/log_mel.h"
#include "models/asr/manifest.h"
#include "models/asr/mel_filterbank.h"
#include "models/asr/parakeet_model.h"
#include "models/asr/parakeet_writer.h"
#include "models/asr/vocabulary_trainer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace forge::asr {
namespace {

constexpr std::int64_t kSampleRate = 16000;
constexpr std::int32_t kCharacters = 28;  // Vocabulary::characters()

// One training utterance, ready for batching: its log-mel features and its labels.
struct Example {
    Tensor features;                    // [T, n_mels]
    std::vector<std::int32_t> labels;
};

std::vector<float> mono_at_model_rate(const std::filesystem::path& path) {
    const audio::Audio a = audio::read_audio(path);
    std::vector<float> mono = audio::channel_of(a, -1);
    if (a.sample_rate != kSampleRate) mono = audio::resample(mono, a.sample_rate, kSampleRate, path.string());
    return mono;
}

void check_config(const AsrTrainConfig& c) {
    check(c.vocab_size >= kCharacters, "--vocab {}: a vocabulary has at least the {} characters", c.vocab_size,
          kCharacters);
    check(c.d_model >= 2 && c.d_model % 2 == 0 && c.n_heads >= 1 && c.d_model % c.n_heads == 0,
          "--d-model {} must be even and divisible by --heads {}", c.d_model, c.n_heads);
    check(c.n_layers >= 1 && c.ff_dim >= 1 && c.subsampling_channels >= 1 && c.n_mels >= 8,
          "--layers, --ff-dim, --subsampling-channels must be >= 1 and --mels >= 8");
    check(c.conv_kernel >= 1 && c.conv_kernel % 2 == 1, "--conv-kernel {} must be odd", c.conv_kernel);
    check(c.steps >= 1 && c.batch_seconds > 0.0 && c.lr > 0.0f && c.warmup >= 0 && c.checkpoint_every >= 1,
          "--steps, --batch-seconds, --lr and --checkpoint-every must be positive, --warmup >= 0");
}

ParakeetConfig model_config(const AsrTrainConfig& c, const Vocabulary& vocabulary) {
    ParakeetConfig m;
    m.arch = ParakeetArch::Ctc;
    m.encoder = {.feat_in = c.n_mels, .d_model = c.d_model, .n_layers = c.n_layers, .n_heads = c.n_heads,
                 .ff_dim = c.ff_dim, .conv_kernel = c.conv_kernel, .subsampling_factor = 8,
                 .subsampling_channels = c.subsampling_channels, .pos_emb_max_len = 5000, .xscaling = true,
                 .use_bias = true};
    m.preprocessor.sample_rate = kSampleRate;
    m.preprocessor.n_mels = c.n_mels;
    m.pieces = vocabulary.pieces();
    m.vocab_size = vocabulary.size();
    m.blank_id = vocabulary.blank_id();
    return m;
}

// Features and labels of every utterance; those with fewer encoder frames than CTC needs for
// their labels (core/ops/ctc.h: ctc_min_frames) are dropped and counted.
std::vector<Example> featurize(std::span<const Utterance> utterances, const LogMel& log_mel,
                               const Vocabulary& vocabulary, const AsrFeaturizeFn& featurized, std::int64_t& skipped) {
    std::vector<Example> examples;
    for (const Utterance& u : utterances) {
        if (featurized) featurized(static_cast<std::size_t>(&u - utterances.data()), utterances.size());
        Example e{log_mel(mono_at_model_rate(u.audio)), vocabulary.encode(u.text)};
        const std::int64_t frames = nn::ConvSubsampling::subsampled_length(e.features.size(0));
        if (ctc_min_frames(e.labels) > frames) {
            ++skipped;
            continue;
        }
        examples.push_back(std::move(e));
    }
    check(!examples.empty(), "no utterance of the manifest is long enough for its transcript at 8x subsampling");
    return examples;
}

// The labels of a batch as CTC's targets: [B, S] i32, zero-padded, with each row's length.
CtcTargets batch_targets(std::span<const Example* const> batch, std::span<const std::int64_t> mel_lengths,
                         std::int64_t blank) {
    std::size_t longest = 1;
    for (const Example* e : batch) longest = std::max(longest, e->labels.size());
    std::vector<std::int32_t> labels(batch.size() * longest, 0);
    CtcTargets t;
    for (std::size_t b = 0; b < batch.size(); ++b) {
        std::copy(batch[b]->labels.begin(), batch[b]->labels.end(), labels.begin() + static_cast<std::ptrdiff_t>(b * longest));
        t.target_lengths.push_back(static_cast<std::int64_t>(batch[b]->labels.size()));
        t.input_lengths.push_back(nn::ConvSubsampling::subsampled_length(mel_lengths[b]));
    }
    t.labels = Tensor::from(std::span<const std::int32_t>(labels),
                            Shape{static_cast<std::int64_t>(batch.size()), static_cast<std::int64_t>(longest)});
    t.blank = blank;
    return t;
}

// Durations as the batcher sees them: encoder input frames, in seconds of audio.
std::vector<Utterance> as_batched(std::span<const Example> examples) {
    std::vector<Utterance> out;
    for (const Example& e : examples)
        out.push_back({.audio = {}, .text = {}, .duration = static_cast<double>(e.features.size(0)) / 100.0, .voice = {}});
    return out;
}

class AsrTrainer {
public:
    AsrTrainer(const AsrTrainConfig& config, const AsrFeaturizeFn& featurized) : config_(config) {
        check_config(config_);
        const std::vector<Utterance> utterances = load_manifest(config_.manifest);
        std::vector<std::string> texts;
        for (const Utterance& u : utterances) texts.push_back(u.text);
        const Vocabulary vocabulary = train_subword_vocabulary(texts, config_.vocab_size);
        model_ = ParakeetModel::make(model_config(config_, vocabulary), config_.seed);
        filterbank_ = slaney_mel_filterbank(kSampleRate, model_.config.preprocessor.n_fft, config_.n_mels);
        window_ = hann_window(model_.config.preprocessor.win_length);
        const LogMel log_mel(model_.config.preprocessor, filterbank_, window_);
        utterances_ = static_cast<std::int64_t>(utterances.size());
        examples_ = featurize(utterances, log_mel, vocabulary, featurized, skipped_);
        if (featurized) featurized(utterances.size(), utterances.size());
        durations_ = as_batched(examples_);
    }

    AsrTrainResult run(const AsrReportFn& report) {
        std::filesystem::create_directories(config_.out_dir);
        optim::Adam optimizer(model_.params.trainable(), optim::adamw_options(config_.lr, config_.weight_decay));
        const optim::WarmupCosine schedule{config_.lr, config_.warmup, config_.steps, config_.lr / 20.0f};
        std::int64_t step = 0;
        if (config_.resume) step = resume(optimizer);
        std::ofstream log = checkpoint::open_step_log(log_path(), config_.resume ? std::optional(step) : std::nullopt);
        AsrTrainResult result;
        const auto start = std::chrono::steady_clock::now();
        double audio_seconds = 0.0;
        for (; step < config_.steps; ++step) {
            const std::vector<std::size_t> batch = next_batch();
            optimizer.set_lr(schedule.at(step));
            const double loss = train_step(batch, step, optimizer);
            for (const std::size_t i : batch) audio_seconds += durations_[i].duration;
            AsrStepReport r{.step = step + 1, .total_steps = config_.steps, .loss = loss, .lr = optimizer.lr(),
                            .grad_norm = last_grad_norm_, .audio_per_s = 0.0, .elapsed_s = seconds_since(start)};
            r.audio_per_s = audio_seconds / std::max(r.elapsed_s, 1e-9);
            write_log_line(log, r);
            if (report) report(r);
            const bool stop = r.step < config_.steps && config_.stop_requested && config_.stop_requested();
            if (r.step % config_.checkpoint_every == 0 || r.step == config_.steps || stop) save(optimizer, r.step);
            if (result.steps == 0) result.first_loss = loss;
            result.loss = loss;
            ++result.steps;
            if (stop) {
                result.interrupted_at = r.step;
                break;
            }
        }
        if (!result.interrupted_at) {  // an interrupted run is not exported: --resume finishes it
            result.model = config_.out_dir / "model.gguf";
            write_parakeet_gguf(result.model, model_, filterbank_, window_, "forge-asr-ctc");
        }
        result.parameters = model_.params.numel();
        result.utterances = utterances_;
        result.skipped = skipped_;
        result.seconds = seconds_since(start);
        return result;
    }

private:
    // One forward, backward and AdamW update on the utterances `batch`; returns the loss.
    double train_step(std::span<const std::size_t> batch, std::int64_t step, optim::Optimizer& optimizer) {
        std::vector<Tensor> items;
        std::vector<const Example*> chosen;
        for (const std::size_t i : batch) {
            items.push_back(examples_[i].features);
            chosen.push_back(&examples_[i]);
        }
        const PaddedBatch padded = pad_batch(items);
        Tensor features = padded.values;
        if (config_.spec_augment)
            features = spec_augment(features, padded.lengths, config_.augment,
                                    random::stream_key(config_.seed, static_cast<std::uint64_t>(step), kAugmentStream));
        const Tensor encoded = model_.encoder(features, padded.lengths);
        const Tensor log_probs = ag::log_softmax((*model_.ctc)(encoded));
        const Tensor loss = ag::ctc_loss(log_probs, batch_targets(chosen, padded.lengths, model_.config.blank_id),
                                         {.reduction = ag::CtcReduction::mean, .zero_infinity = false});
        optimizer.zero_grad();
        ag::backward(loss);
        last_grad_norm_ = optim::clip_grad_norm(optimizer.params(), config_.clip);
        optimizer.step();
        const double value = loss.item();
        check(std::isfinite(value), "train asr: the loss became {} at step {} (lower --lr?)", value, step + 1);
        return value;
    }

    // The batches of epoch after epoch, in the batcher's order: step s always gets the same one.
    std::vector<std::size_t> next_batch() {
        if (pending_.empty()) {
            pending_ = duration_batches(durations_, config_.batch_seconds, config_.seed, epoch_);
            if (config_.shortest_first && epoch_ == 0) order_by_duration(pending_, durations_);
            ++epoch_;
            std::reverse(pending_.begin(), pending_.end());
        }
        std::vector<std::size_t> batch = std::move(pending_.back());
        pending_.pop_back();
        return batch;
    }

    void save(const optim::Optimizer& optimizer, std::int64_t step) const {
        checkpoint::save_checkpoint(checkpoint_base(),
                                    {model_.params.state_dict(), optimizer.state(), step, config_.seed});
    }

    // The parameters and optimizer of the last checkpoint; the batches of its steps are drawn
    // again (not trained on) so the run continues with the batches it would have had (the log
    // loses the lines of steps after the checkpoint in open_step_log).
    std::int64_t resume(optim::Optimizer& optimizer) {
        const checkpoint::Checkpoint saved = checkpoint::load_checkpoint(checkpoint_base());
        check(saved.seed == config_.seed, "{}: written with --seed {}, not {}", checkpoint_base().string(), saved.seed,
              config_.seed);
        checkpoint::restore_params(saved.params, model_.params.state_dict());
        optimizer.load_state(saved.optimizer);
        for (std::int64_t s = 0; s < saved.step; ++s) next_batch();
        return saved.step;
    }

    void write_log_line(std::ofstream& log, const AsrStepReport& r) const {
        const nlohmann::json line = {{"step", r.step},           {"loss", r.loss}, {"lr", r.lr},
                                     {"grad_norm", r.grad_norm}, {"audio_per_s", r.audio_per_s},
                                     {"elapsed_s", r.elapsed_s}};
        log << line.dump() << '\n';
        log.flush();
    }

    static double seconds_since(std::chrono::steady_clock::time_point start) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    std::filesystem::path checkpoint_base() const { return config_.out_dir / "checkpoint"; }
    std::filesystem::path log_path() const { return config_.out_dir / "log.jsonl"; }

    static constexpr std::uint64_t kAugmentStream = 0x5eca;

    AsrTrainConfig config_;
    ParakeetModel model_;
    Tensor filterbank_;
    std::vector<float> window_;
    std::vector<Example> examples_;
    std::vector<Utterance> durations_;
    std::int64_t utterances_ = 0, skipped_ = 0;
    std::uint64_t epoch_ = 0;
    std::vector<std::vector<std::size_t>> pending_;  // the rest of the current epoch, last first
    double last_grad_norm_ = 0.0;
};

}  // namespace

AsrTrainResult train_asr(const AsrTrainConfig& config, const AsrReportFn& report, const AsrFeaturizeFn& featurized) {
    AsrTrainer trainer(config, featurized);
    return trainer.run(report);
}

}  // namespace forge::asr
