#include "models/gpt/training_loop.h"

#include "core/checkpoint/step_log.h"
#include "core/error.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <optional>

namespace forge::gpt {
namespace {

using Clock = std::chrono::steady_clock;

// Whether stop_requested asks on this rank or any other: one vote summed over the ranks each
// step, so that all of them stop after the same step.
bool stop_requested_on_any_rank(const std::function<bool()>& stop_requested, distributed::Communicator& comm) {
    if (!stop_requested) return false;
    std::array<double, 1> votes = {stop_requested() ? 1.0 : 0.0};
    if (comm.size() > 1) comm.sum_in_rank_order(votes);
    return votes[0] > 0.0;
}

void write_log_line(std::ofstream& log, const StepReport& r, const TrainingLoop& loop, TrainingSteps& steps) {
    nlohmann::json line = {{"step", r.step}, {"elapsed_s", r.elapsed_s}};
    if (r.step > 0) {  // step 0 is the validation before training
        line["loss"] = r.loss;
        line["lr"] = r.lr_multiplier * loop.peak_lr;
        line["lr_multiplier"] = r.lr_multiplier;
        line["tokens_per_s"] = r.tokens_per_s;
        line["optimizer_s"] = r.optimizer_s;
    }
    if (r.allreduce_s) line["allreduce_s"] = *r.allreduce_s;
    if (r.allreduce_exposed_s) line["allreduce_exposed_s"] = *r.allreduce_exposed_s;
    if (r.val_bpb) line["val_bpb"] = *r.val_bpb;
    if (r.val_loss) line["val_loss"] = *r.val_loss;
    if (r.sample) line["sample"] = *r.sample;
    steps.add_log_fields(r, line);
    // A greedy sample of a young model may end inside a UTF-8 sequence: write U+FFFD for it.
    log << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    log.flush();
}

}  // namespace

std::int64_t rows_per_rank(std::int64_t batch, const distributed::Communicator& comm) {
    check(batch % comm.size() == 0, "--batch {} does not split evenly over {} ranks (give a multiple of {})", batch,
          comm.size(), comm.size());
    return batch / comm.size();
}

std::int64_t counted_targets(const Tensor& targets) {
    const std::int32_t* t = targets.data<std::int32_t>();
    return std::count_if(t, t + targets.numel(), [](std::int32_t v) { return v != kNoTarget; });
}

TrainResult run_training_loop(TrainingSteps& steps, const TrainingLoop& loop, distributed::Communicator& comm,
                              const ReportFn& report) {
    std::ofstream log;
    if (comm.is_root()) {
        log = checkpoint::open_step_log(loop.log, loop.resumed ? std::optional(loop.done) : std::nullopt);
        if (loop.validate_before_training && !loop.resumed) {
            StepReport r;
            steps.validate(r);
            write_log_line(log, r, loop, steps);
        }
    }
    TrainResult result;
    const auto start = Clock::now();
    double train_seconds = 0.0;
    std::int64_t step = loop.done;
    while (step < loop.steps) {
        StepReport r;
        const float multiplier = lr_multiplier(loop.schedule, step, loop.steps);
        const auto step_start = Clock::now();
        r.loss = steps.train_step(step, multiplier, r);
        ++step;
        const double seconds = std::chrono::duration<double>(Clock::now() - step_start).count();
        train_seconds += seconds;
        result.tokens += loop.step_tokens;
        r.step = step;
        r.total_steps = loop.steps;
        r.lr_multiplier = multiplier;
        r.tokens_per_s = static_cast<double>(loop.step_tokens) / seconds;
        r.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
        result.interrupted = step < loop.steps && stop_requested_on_any_rank(loop.stop_requested, comm);
        if (comm.is_root()) {  // the other ranks' models are the same bits
            if (step % loop.eval_every == 0 || step == loop.steps) steps.validate(r);
            write_log_line(log, r, loop, steps);
            if (step % loop.checkpoint_every == 0 || step == loop.steps || result.interrupted)
                steps.save_checkpoint(step);
            if (report) report(r);
            result.loss = r.loss;
            if (r.val_bpb) result.val_bpb = *r.val_bpb;
            if (r.val_loss) result.val_loss = *r.val_loss;
        }
        if (result.interrupted) break;
    }
    result.steps = step;
    result.seconds = train_seconds;
    result.tokens_per_s = train_seconds > 0.0 ? static_cast<double>(result.tokens) / train_seconds : 0.0;
    if (comm.is_root() && !result.interrupted && result.tokens == 0) {  // resumed a finished run
        StepReport r;
        steps.validate(r);
        result.val_bpb = r.val_bpb.value_or(0.0);
        result.val_loss = r.val_loss.value_or(0.0);
    }
    return result;
}

}  // namespace forge::gpt
