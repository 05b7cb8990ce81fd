// `forge train asr --manifest M.jsonl [--out DIR] [--vocab V] [--d-model D] [--layers L]
// [--heads H] [--ff-dim F] [--steps N] [--batch-seconds S] [--lr R] [--seed S] [--resume]
// [--json]`: train a FastConformer-CTC speech model (models/asr/trainer.h) and export
// DIR/model.gguf in the Parakeet layout, for `forge transcribe --model DIR/model.gguf`.
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/progress_bar.h"
#include "app/training_run.h"
#include "models/asr/trainer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace forge::app {
namespace {

struct AsrCli {
    asr::AsrTrainConfig config;
    std::string manifest, out = "asr-run";
    std::int64_t log_every = 50;
    bool json = false;
    bool force = false;
    bool length_given = false;  // --steps
};

int run_train_asr(AsrCli& cli) {
    check_not_finished(cli.out, cli.config.resume, cli.force);
    if (!cli.length_given)
        spdlog::info("train asr: {} steps (the default length; --steps N sets it)", cli.config.steps);
    cli.config.manifest = cli.manifest;
    cli.config.out_dir = cli.out;
    ProgressBar reading("log-mel", "clips"), bar("train asr", "steps");
    const auto featurized = [&](std::size_t done, std::size_t total) {
        reading.update(static_cast<std::int64_t>(done), static_cast<std::int64_t>(total));
        if (done == total) reading.finish();
    };
    const auto step = [&](const asr::AsrStepReport& s) {
        bar.update(s.step, s.total_steps, fmt::format("loss {:.4f}", s.loss));
        if (s.step % cli.log_every == 0 || s.step == s.total_steps)
            bar.line(fmt::format("step {}/{}: loss {:.4f}, lr {:.2e}, grad norm {:.3f}, {:.1f} s of audio/s", s.step,
                                 s.total_steps, s.loss, s.lr, s.grad_norm, s.audio_per_s));
    };
    CtrlCStopsTraining ctrl_c;
    cli.config.stop_requested = [&] { return ctrl_c.requested(); };
    const asr::AsrTrainResult r = asr::train_asr(cli.config, step, featurized);
    bar.finish();
    if (r.interrupted_at && cli.json) {
        fmt::print("{}\n", nlohmann::json{{"interrupted", true}, {"steps", *r.interrupted_at}, {"out", cli.out}}.dump());
    } else if (r.interrupted_at) {
        print_interrupted("train asr", *r.interrupted_at, cli.out);
    } else if (cli.json) {
        const nlohmann::json out = {{"loss", r.loss},           {"first_loss", r.first_loss}, {"steps", r.steps},
                                    {"parameters", r.parameters}, {"utterances", r.utterances}, {"skipped", r.skipped},
                                    {"seconds", r.seconds},     {"model", r.model.string()}};
        fmt::print("{}\n", out.dump());
    } else {
        fmt::print("trained {} parameters for {} steps on {} utterances ({} too short for their transcript): loss "
                   "{:.4f} -> {:.4f}\nwrote {}\n",
                   r.parameters, r.steps, r.utterances - r.skipped, r.skipped, r.first_loss, r.loss, r.model.string());
    }
    return 0;
}

// The flags that must agree with each other, checked once all are parsed.
void check_flag_combinations(const asr::AsrTrainConfig& c) {
    if (c.d_model % 2 != 0 || c.d_model % c.n_heads != 0)
        throw CLI::ValidationError("--d-model", fmt::format("{} must be even and a multiple of --heads {}", c.d_model, c.n_heads));
    if (c.conv_kernel % 2 == 0) throw CLI::ValidationError("--conv-kernel", fmt::format("{} is not odd", c.conv_kernel));
}

}  // namespace

void add_train_asr_command(CLI::App& train, CommandTable& commands) {
    auto cli = std::make_shared<AsrCli>();
    auto& c = cli->config;
    CLI::App* asr = train.add_subcommand("asr", "Train a FastConformer-CTC speech model; export a Parakeet GGUF");
    asr->add_option("--manifest", cli->manifest, "JSONL manifest: audio, text, duration (tools/make_asr_data.sh)")
        ->required()->check(input_file());
    asr->add_option("--out", cli->out, "Run folder: checkpoint, log.jsonl, model.gguf")
        ->capture_default_str()->check(folder_path());
    // Sizes: at least what the model needs, at most far past any model trained on a CPU.
    const auto range = [](std::int64_t min, std::int64_t max) { return CLI::Range(min, max); };
    asr->add_option("--vocab", c.vocab_size, "Subword pieces learned from the transcripts (28: characters)")
        ->capture_default_str()->check(range(28, 1 << 16));  // the 28 of asr::Vocabulary::characters()
    asr->add_option("--mels", c.n_mels, "Mel channels")->capture_default_str()->check(range(8, 256));
    asr->add_option("--d-model", c.d_model, "Encoder width (even, a multiple of --heads)")
        ->capture_default_str()->check(range(2, 8192));
    asr->add_option("--layers", c.n_layers, "Conformer layers")->capture_default_str()->check(range(1, 128));
    asr->add_option("--heads", c.n_heads, "Attention heads")->capture_default_str()->check(range(1, 256));
    asr->add_option("--ff-dim", c.ff_dim, "Feed-forward width")->capture_default_str()->check(range(1, 32768));
    asr->add_option("--conv-kernel", c.conv_kernel, "Depthwise convolution kernel (odd)")
        ->capture_default_str()->check(range(1, 255));
    asr->add_option("--subsampling-channels", c.subsampling_channels, "Channels of the 8x subsampling convolutions")
        ->capture_default_str()->check(range(1, 8192));
    const auto steps = range(1, kMaxTrainingSteps);
    auto* steps_flag = asr->add_option("--steps", c.steps, "Optimizer steps")->capture_default_str()->check(steps);
    asr->add_option("--batch-seconds", c.batch_seconds, "Padded audio per batch, seconds")
        ->capture_default_str()->check(positive_finite(86400));
    asr->add_option("--lr", c.lr, "Peak AdamW learning rate (warmup, then cosine to 1/20)")
        ->capture_default_str()->check(positive_finite(kMaxLearningRate));
    asr->add_option("--warmup", c.warmup, "Warmup steps")->capture_default_str()->check(range(0, kMaxTrainingSteps));
    asr->add_option("--weight-decay", c.weight_decay, "AdamW decoupled weight decay")
        ->capture_default_str()->check(finite_range(0, 1));
    asr->add_option("--grad-clip", c.clip, "Global gradient-norm bound")
        ->capture_default_str()->check(positive_finite(1e6));
    asr->add_flag("!--no-spec-augment", c.spec_augment, "Train without SpecAugment masks");
    asr->add_flag("--shortest-first", c.shortest_first,
                  "SortaGrad: the first epoch's batches from the shortest utterances to the longest");
    asr->add_option("--checkpoint-every", c.checkpoint_every, "Steps between checkpoints")
        ->capture_default_str()->check(steps);
    asr->add_option("--log-every", cli->log_every, "Steps between progress lines")->capture_default_str()->check(steps);
    asr->add_option("--seed", c.seed, "Seed of the initialization, batches and masks")->capture_default_str();
    asr->add_flag("--resume", c.resume, "Continue from OUT/checkpoint.json");
    asr->add_flag("--json", cli->json, "Print one JSON object: loss, first_loss, steps, parameters, model");
    add_force_flag(*asr, cli->force);
    asr->callback([cli, steps_flag] {
        check_flag_combinations(cli->config);
        cli->length_given = steps_flag->count() > 0;
    });
    commands.add(asr, [cli] { return run_train_asr(*cli); });
}

}  // namespace forge::app
