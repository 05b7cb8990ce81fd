// `forge train sft`: supervised fine-tuning of a GPT that `forge train gpt` exported, on
// conversations (conversations.h), with the pretraining loop (trainer.h): the same
// optimizer, checkpoints, log.jsonl, resume and GGUF export. The loss counts only the
// assistant's tokens; validation is the loss (and bits per byte) of those tokens in held-out
// conversations, with a greedy reply to the first one as the sample.
#pragma once

#include "models/gpt/trainer.h"

#include <filesystem>

namespace forge::gpt {

// Passes over the data a run may ask for (`--epochs`): more would only overflow the step count.
inline constexpr double kMaxEpochs = 10'000;

struct SftConfig {
    std::filesystem::path model;     // a GGUF from `forge train gpt` / `train sft`, or its run folder
    std::filesystem::path data;      // JSONL conversations
    std::filesystem::path val_data;  // empty: the last 5% of `data` (at least one conversation)
    double epochs = 1.0;
    bool eval_only = false;  // measure --model on the validation conversations; no training, no files
    TrainConfig train;  // out_dir, batch, seq_len (0: the model's context), rates, seed, eval/checkpoint cadence
};

// The GGUF a --model argument names: the file, or RUN_DIR/model.gguf.
std::filesystem::path sft_base_model(const std::filesystem::path& model);

// Trains (or with eval_only, only validates: val_loss and val_bpb of the result, steps 0), in
// one process or as rank comm.rank() of a data-parallel job (trainer.h).
TrainResult train_sft(SftConfig config, const ReportFn& report, distributed::Communicator& comm);
TrainResult train_sft(SftConfig config, const ReportFn& report);

}  // namespace forge::gpt
