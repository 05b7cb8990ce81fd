// `forge train gpt`: pretraining a GPT on text files, end to end.
//
//   corpus (corpus.h) -> steps of B rows x T tokens, split into micro-batches whose
//   gradients accumulate -> GptOptimizer (Muon + AdamW) -> every K steps: validation bits
//   per byte, a greedy sample, a checkpoint -> DIR/model.gguf for llama.cpp.
//
// DIR holds checkpoint.safetensors (run_checkpoint.h), log.jsonl (one JSON object per
// logged step: step, loss, lr, tokens_per_s, optimizer_s, allreduce_s under mpirun, and
// val_bpb/sample when measured) and, at the end, model.gguf. A resumed run loads the
// checkpoint, drops log lines after it, and continues with the same rows and rates, so its
// losses equal an uninterrupted run's.
//
// Data parallel (`mpirun -np P forge train gpt`, docs/TRAINING.md): rank r of P reads rows
// [r B/P, (r+1) B/P) of each global batch of B rows, in micro-batches; the last micro-batch's
// backward hands final gradients to a GradientSync (core/distributed/), which sums them over
// the ranks in rank order while the backward continues. The optimizer step then runs on the
// same sums on every rank; rank 0 alone logs, evaluates, checkpoints and exports. The rows of
// a step do not depend on P, so --resume works with any number of ranks that divides B.
#pragma once

#include "core/distributed/communicator.h"
#include "models/gpt/gpt_config.h"
#include "models/gpt/gpt_optimizer.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace forge::gpt {

struct TrainConfig {
    std::vector<std::filesystem::path> data;
    std::filesystem::path tokenizer;
    std::filesystem::path out_dir = "gpt-run";
    std::int64_t depth = 4;
    std::int64_t head_dim = 0;  // 0: GptConfig's default
    std::int64_t seq_len = 256;
    std::int64_t batch = 16;       // rows of seq_len tokens per optimizer step
    std::int64_t micro_batch = 0;  // rows per forward/backward (of one rank); 0: what fits the memory budget
    std::int64_t steps = 0;        // 0: from `tokens`, else 20 tokens per parameter (nanochat's ratio)
    std::int64_t tokens = 0;
    std::uint64_t seed = 0;
    std::int64_t eval_every = 100;
    std::int64_t checkpoint_every = 100;
    std::int64_t eval_tokens = 1 << 15;
    std::string sample_prompt = "The";
    int sample_tokens = 24;
    bool resume = false;
    OptimizerConfig optimizer;
};

struct StepReport {
    std::int64_t step = 0;  // optimizer steps done
    std::int64_t total_steps = 0;
    double loss = 0.0;
    double lr_multiplier = 0.0;
    double grad_norm = 0.0;
    double tokens_per_s = 0.0;
    double elapsed_s = 0.0;  // training time of this invocation so far
    double optimizer_s = 0.0;  // of this step, in the optimizer (every rank runs all of it)
    // Data parallel only: seconds this step spent summing gradients over the ranks, and the
    // part of it the backward pass did not hide.
    std::optional<double> allreduce_s, allreduce_exposed_s;
    std::optional<double> val_bpb;
    std::optional<std::string> sample;
};

struct TrainResult {
    std::int64_t steps = 0;
    std::int64_t parameters = 0;
    std::int64_t tokens = 0;  // trained on by this invocation
    double loss = 0.0;
    double val_bpb = 0.0;
    double tokens_per_s = 0.0;
    double seconds = 0.0;
    std::filesystem::path model;
};

using ReportFn = std::function<void(const StepReport&)>;

// One process, or rank comm.rank() of a data-parallel job (report is called on rank 0 only).
TrainResult train_gpt(const TrainConfig& config, const ReportFn& report);
TrainResult train_gpt(const TrainConfig& config, const ReportFn& report, distributed::Communicator& comm);

}  // namespace forge::gpt
