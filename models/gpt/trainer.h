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
#include "core/ops/matmul_precision.h"
#include "core/tensor.h"
#include "models/gpt/gpt_config.h"
#include "models/gpt/gpt_optimizer.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace forge::gpt {

class GptModel;

// Bounds of a run's settings, which `forge train gpt|sft` check at parse time: with at most
// 10^9 steps (app/cli_checks.h) a step's row index (step x batch) and token count (x seq_len)
// stay far inside 64 bits.
inline constexpr std::int64_t kMaxTokens = 1'000'000'000'000;  // --tokens: a trillion
inline constexpr std::int64_t kMaxBatch = std::int64_t{1} << 16;
inline constexpr int kMaxSampleTokens = 4096;     // each is a forward pass at every evaluation

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
    // --precision: the matrix products' arithmetic (core/autograd/autocast.h) in the training
    // steps; evaluation, the optimizer and the weights stay f32. Empty: f32, or when resuming
    // the checkpoint's.
    std::optional<MatmulPrecision> precision;
    OptimizerConfig optimizer;
    // Asked after each step (Ctrl-C in app/): true ends the run there with a checkpoint, as a
    // periodic one, and no export; --resume continues it. Under mpirun every rank must set it:
    // the ranks stop at the first step where any of them asks.
    std::function<bool()> stop_requested;
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
    std::optional<double> val_loss;  // mean nats per trained target (SFT: assistant tokens)
    std::optional<std::string> sample;
};

struct TrainResult {
    std::int64_t steps = 0;
    std::int64_t parameters = 0;
    std::int64_t tokens = 0;  // trained on by this invocation
    double loss = 0.0;
    double val_bpb = 0.0;
    double val_loss = 0.0;  // when the run's data measures it (SFT)
    double tokens_per_s = 0.0;
    double seconds = 0.0;
    std::filesystem::path model;  // empty when interrupted
    bool interrupted = false;     // stopped by stop_requested after `steps` steps; the checkpoint has them
};

using ReportFn = std::function<void(const StepReport&)>;

// A target that adds no loss (ag::CrossEntropyOptions' default ignore_index): SFT's prompt
// tokens and the padding after the last whole conversation of a row.
inline constexpr std::int32_t kNoTarget = -100;

// What a run trains on and how it is measured: the packed corpus of pretraining (below) or
// the conversations of SFT (sft.h). The trainer around it is the same.
class TrainingData {
public:
    virtual ~TrainingData() = default;
    // Rows [first, first + count) of the run's row sequence (row r = step * batch + i),
    // a pure function of (seed, row): inputs and targets, both [count, seq_len] i32.
    virtual void rows(std::int64_t first, std::int64_t count, Tensor& inputs, Tensor& targets) = 0;
    // Fills r.val_bpb (and r.val_loss, r.sample when it measures them) for the model as it is now.
    virtual void validate(const GptModel& model, std::int64_t micro_batch, StepReport& r) = 0;
};

// How a run starts: from random weights (pretraining) or from a GGUF the GPT exported (SFT).
struct RunStart {
    std::unique_ptr<TrainingData> data;
    std::filesystem::path init_weights;  // empty: initialise from config.seed
    std::string model_name;              // general.name of the export
};

// The loop shared by pretraining and SFT, in one process or as rank comm.rank() of a
// data-parallel job (report is called on rank 0 only). config.tokenizer names the GGUF whose tokenizer.*
// keys the export copies (the base model itself for SFT).
TrainResult train(const TrainConfig& config, RunStart start, const ReportFn& report);
TrainResult train(const TrainConfig& config, RunStart start, const ReportFn& report, distributed::Communicator& comm);

TrainResult train_gpt(const TrainConfig& config, const ReportFn& report);
TrainResult train_gpt(const TrainConfig& config, const ReportFn& report, distributed::Communicator& comm);

}  // namespace forge::gpt
