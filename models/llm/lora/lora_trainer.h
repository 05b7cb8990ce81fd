// `forge train lora`: fine-tuning a downloaded llama-family GGUF with LoRA (lora_model.h) on
// conversations (OpenAI's {"messages": [...]} lines through the model's chat template, loss on
// the assistant's tokens only, as `train sft`: models/gpt/conversations.h) or on plain text
// (continued pretraining, every token counted).
//
//   rows of seq_len tokens, in a seeded order per epoch -> steps of `batch` rows, split into
//   micro-batches whose gradients accumulate -> AdamW on the adapter's factors (train gpt's
//   rate schedule, models/gpt/lr_schedule.h) -> every K steps the held-out loss and a
//   checkpoint -> DIR/adapter.gguf in llama.cpp's LoRA format (lora_adapter.h).
//
// The step loop is train gpt's (models/gpt/training_loop.h), and so is data parallelism:
// under `mpirun -np P` rank r trains rows [r B/P, (r+1) B/P) of each step, the factors'
// gradients are summed over the ranks in rank order, and rank 0 alone logs, validates and
// writes the checkpoints and the adapter. Dropout is keyed by a micro-batch's place in the
// step, so P ranks equal one process with the same micro-batches, bit for bit.
//
// DIR also holds checkpoint.safetensors (the factors, AdamW's moments, the step and the
// settings, written atomically) and log.jsonl (step, loss, lr, lr_multiplier, tokens_per_s,
// elapsed_s, optimizer_s, allreduce_s under mpirun, val_loss, val_bpb and val_exact when measured). A resumed run continues with the same rows, dropout masks and
// rates, so its adapter equals an uninterrupted run's byte for byte.
#pragma once

#include "core/distributed/communicator.h"
#include "models/gpt/lr_schedule.h"
#include "models/gpt/trainer.h"
#include "models/llm/lora/lora_model.h"

#include <filesystem>
#include <functional>

namespace forge::llm::lora {

struct LoraTrainConfig {
    std::filesystem::path model;     // the base GGUF, any dtype forge runs
    std::filesystem::path data;      // JSONL conversations, or with `text` a text file
    std::filesystem::path val_data;  // empty: the last 5% of the rows of `data` (at least one)
    bool text = false;               // `data` is plain text (continued pretraining)
    std::filesystem::path out_dir = "lora-run";
    LoraSettings lora;
    float lr = 1e-4f;  // the peak rate of `schedule`
    gpt::LrSchedule schedule;  // train gpt's: constant, then a linear warmdown over the last 20%
    float weight_decay = 0.0f;
    double epochs = 1.0;
    std::int64_t steps = 0;  // 0: from epochs
    std::int64_t seq_len = 512;
    std::int64_t batch = 4;        // rows per optimizer step, all ranks together
    std::int64_t micro_batch = 1;  // rows per forward/backward (divides each rank's batch / P)
    std::int64_t eval_every = 50;
    std::int64_t checkpoint_every = 50;
    bool resume = false;
    // Asked after each step (Ctrl-C): true ends the run there with a checkpoint, no adapter.
    std::function<bool()> stop_requested;
};

struct LoraTrainResult : gpt::TrainResult {
    // Of the last validation: the share of held-out replies (runs of counted targets) that
    // greedy decoding reproduces exactly, i.e. whose every token is its position's argmax.
    double val_exact = 0.0;
};

// Trains and writes DIR/adapter.gguf (TrainResult::model); parameters counts the factors.
// log.jsonl starts with a step-0 line: the validation of the untrained adapter (the base).
// With a communicator, as rank comm.rank() of a data-parallel job (report on rank 0 only).
LoraTrainResult train_lora(const LoraTrainConfig& config, const gpt::ReportFn& report);
LoraTrainResult train_lora(const LoraTrainConfig& config, const gpt::ReportFn& report, distributed::Communicator& comm);

// One optimizer step's loss and gradients on given rows, outside a run: what the PyTorch
// golden checks (test/models/llm/lora_step_golden_test.cpp). The mean loss over the counted
// targets of `targets` (gpt::kNoTarget: not counted); gradients land in ag::grad of the factors.
double loss_and_gradients(const LoraModel& model, const Tensor& inputs, const Tensor& targets,
                          std::uint64_t dropout_key);

}  // namespace forge::llm::lora
