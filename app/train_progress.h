// What `forge train gpt` and `forge train sft` share: the progress display (app/progress_bar.h
// with loss and tokens/s; a line at each evaluation) and the run flags.
#pragma once

#include "app/cli_checks.h"
#include "app/progress_bar.h"
#include "models/gpt/trainer.h"

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>

namespace forge::app {

// The progress of `forge train gpt|sft` on the one progress bar (app/progress_bar.h): the
// step's loss and tokens/s on the bar; an evaluation's report and the model's sample as lines.
class TrainProgress {
public:
    void operator()(const gpt::StepReport& r) {
        if (!started_) bar_.start_from(r.step - 1);  // a resumed run counts its own steps
        started_ = true;
        bar_.update(r.step, r.total_steps, fmt::format("loss {:.4f}, {:.0f} tok/s", r.loss, r.tokens_per_s));
        if (!r.val_bpb) return;
        const std::string val_loss = r.val_loss ? fmt::format(", val loss {:.4f}", *r.val_loss) : "";
        bar_.line(fmt::format("step {}/{}: loss {:.4f}{}, val {:.4f} bits/byte, {:.0f} tok/s, lr x{:.3f}, {} elapsed",
                              r.step, r.total_steps, r.loss, val_loss, *r.val_bpb, r.tokens_per_s, r.lr_multiplier,
                              format_duration(r.elapsed_s)));
        // A young model's greedy sample may end inside a UTF-8 sequence: print U+FFFD for it.
        if (r.sample)
            bar_.line("  sample: " +
                      nlohmann::json(*r.sample).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }

private:
    ProgressBar bar_{"train", "steps"};
    bool started_ = false;
};

// The flags `forge train gpt` and `forge train sft` share: seed, cadence, rates, resume. Each
// is checked at parse time (app/cli_checks.h): 0, a negative, NaN or an absurd value is a
// usage error, not a silent default or a model of NaNs.
inline void add_run_options(CLI::App& cmd, gpt::TrainConfig& c) {
    const CLI::Range steps(std::int64_t{1}, kMaxTrainingSteps);
    cmd.add_option("--seed", c.seed, "Seed of the initialization and the data order")->capture_default_str();
    cmd.add_option("--eval-every", c.eval_every, "Steps between validations and samples")
        ->capture_default_str()->check(steps);
    cmd.add_option("--checkpoint-every", c.checkpoint_every, "Steps between checkpoints")
        ->capture_default_str()->check(steps);
    cmd.add_option("--matrix-lr", c.optimizer.matrix_lr, "Muon rate before scaling")
        ->capture_default_str()->check(positive_finite(kMaxLearningRate));
    cmd.add_option("--embedding-lr", c.optimizer.embedding_lr, "AdamW rate of the embedding before scaling")
        ->capture_default_str()->check(positive_finite(kMaxLearningRate));
    cmd.add_option("--unembedding-lr", c.optimizer.unembedding_lr, "AdamW rate of the head before scaling")
        ->capture_default_str()->check(positive_finite(kMaxLearningRate));
    cmd.add_option("--warmdown-ratio", c.optimizer.schedule.warmdown_ratio, "Final fraction of steps decaying to 0")
        ->capture_default_str()->check(finite_range(0.0, 1.0));
    cmd.add_option("--grad-clip", c.optimizer.grad_clip, "Global gradient-norm bound (0: none)")
        ->capture_default_str()->check(finite_range(0.0, 1e6));
    cmd.add_flag("--resume", c.resume, "Continue from OUT/checkpoint.safetensors");
}

// --micro-batch must divide --batch (under mpirun also each rank's share, checked once the
// ranks are known). Called once every flag is parsed, so a mismatch is a usage error too.
inline void check_micro_batch(const gpt::TrainConfig& c) {
    if (c.micro_batch > 0 && c.batch % c.micro_batch != 0)
        throw CLI::ValidationError("--micro-batch", fmt::format("{} does not divide --batch {}", c.micro_batch, c.batch));
}

// The flags that shape the rows of a step, for both commands.
inline void add_batch_options(CLI::App& cmd, gpt::TrainConfig& c) {
    cmd.add_option("--batch", c.batch, "Rows per optimizer step (the global batch)")
        ->capture_default_str()->check(CLI::Range(std::int64_t{1}, gpt::kMaxBatch));
    cmd.add_option("--micro-batch", c.micro_batch, "Rows per forward/backward (default: what fits 2 GiB)")
        ->check(CLI::Range(std::int64_t{1}, gpt::kMaxBatch));
}

}  // namespace forge::app
