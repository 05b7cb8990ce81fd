// The step loop of every trainer with a run folder: `forge train gpt|sft` (trainer.h) and
// `forge train lora` (models/llm/lora/lora_trainer.h).
//
//   for each step: train it (every rank) -> its rate multiplier, tokens/s, a stop vote over the
//   ranks -> on rank 0: validate every eval_every steps and at the end, one log.jsonl line,
//   a checkpoint every checkpoint_every steps, at the end and when stopped, the report.
//
// What differs between the trainers (a step, a validation, a checkpoint, a few log fields of
// their own) is the TrainingSteps they hand the loop. The loop owns log.jsonl: emptied for a
// new run, cut back to the checkpoint for a resumed one (core/checkpoint/step_log.h).
#pragma once

#include "core/distributed/communicator.h"
#include "core/tensor.h"
#include "models/gpt/lr_schedule.h"
#include "models/gpt/trainer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>

namespace forge::gpt {

class TrainingSteps {
public:
    virtual ~TrainingSteps() = default;
    // Every rank: optimizer step `step` (0-based) at `lr_multiplier` times the peak rates.
    // Returns the step's mean loss over all ranks (the same on each); fills r.optimizer_s and
    // under mpirun the gradient exchange's times, and may fill r.grad_norm.
    virtual double train_step(std::int64_t step, float lr_multiplier, StepReport& r) = 0;
    // Rank 0: the validation fields of r, for the model as it is now.
    virtual void validate(StepReport& r) = 0;
    // Rank 0: the run's checkpoint after `steps_done` steps.
    virtual void save_checkpoint(std::int64_t steps_done) = 0;
    // Rank 0: this trainer's own fields of r's log.jsonl line, beside the loop's.
    virtual void add_log_fields(const StepReport& r, nlohmann::json& line) = 0;
};

struct TrainingLoop {
    std::filesystem::path log;  // log.jsonl
    std::int64_t steps = 0;     // of the whole run
    std::int64_t done = 0;      // taken before this invocation (the checkpoint a resumed run loaded)
    bool resumed = false;
    std::int64_t step_tokens = 0;  // tokens per step, all ranks together
    std::int64_t eval_every = 1, checkpoint_every = 1;
    LrSchedule schedule;
    double peak_lr = 0.0;  // log.jsonl's "lr" is this times the step's multiplier
    // A new run first logs a step-0 line: the validation of the model before any step.
    bool validate_before_training = false;
    // Asked after each step on every rank (Ctrl-C); the ranks stop after the first step where any asks.
    std::function<bool()> stop_requested;
};

// The loop of a run whose settings are `config`'s: a trainer's config with out_dir, batch,
// seq_len, eval_every, checkpoint_every, resume and stop_requested (TrainConfig, LoRA's).
template <typename Config>
TrainingLoop training_loop_of(const Config& config, std::int64_t steps, const LrSchedule& schedule, double peak_lr) {
    TrainingLoop loop;
    loop.log = config.out_dir / "log.jsonl";
    loop.steps = steps;
    loop.resumed = config.resume;
    loop.step_tokens = config.batch * config.seq_len;
    loop.eval_every = config.eval_every;
    loop.checkpoint_every = config.checkpoint_every;
    loop.schedule = schedule;
    loop.peak_lr = peak_lr;
    loop.stop_requested = config.stop_requested;
    return loop;
}

// The rows of a step of `batch` rows that each rank trains on; a batch that does not split
// evenly is an error naming the numbers.
std::int64_t rows_per_rank(std::int64_t batch, const distributed::Communicator& comm);

// How many of `targets` (i32) add to the loss: all but kNoTarget.
std::int64_t counted_targets(const Tensor& targets);

// Runs steps [loop.done, loop.steps) as rank comm.rank() of the job; report is called on rank
// 0 only. The result has everything but `parameters` and `model` (the trainer's export). A
// resumed run with no step left validates once more on rank 0, for the summary.
TrainResult run_training_loop(TrainingSteps& steps, const TrainingLoop& loop, distributed::Communicator& comm,
                              const ReportFn& report);

}  // namespace forge::gpt
