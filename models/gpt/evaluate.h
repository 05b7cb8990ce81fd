// Measuring a GPT without gradients: validation bits per byte and greedy continuations.
#pragma once

#include "models/gpt/gpt_model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::gpt {

struct HeldOutScore {
    double loss = 0.0;           // mean nats per scored target (special tokens included)
    double bits_per_byte = 0.0;  // over the targets that stand for text
    std::int64_t targets = 0;
};

// Scores rows of inputs and targets [N, T] (i32), `batch` rows per forward; targets equal to
// kNoTarget (trainer.h) count nowhere, special-token targets (0 bytes) only in the loss.
HeldOutScore score_rows(const GptModel& model, const Tensor& inputs, const Tensor& targets,
                        std::span<const std::int32_t> token_bytes, std::int64_t batch);

// Bits per byte of text over the first `max_tokens` targets of `tokens` (windows of
// seq_len + 1, `batch` rows at a time): the summed cross-entropy in bits of every target
// that stands for text, divided by the UTF-8 bytes of those targets. Targets that are
// special tokens (0 bytes: BOS) count in neither sum, so the number does not depend on the
// vocabulary (nanochat's evaluate_bpb).
double bits_per_byte(const GptModel& model, std::span<const std::int32_t> tokens,
                     std::span<const std::int32_t> token_bytes, std::int64_t seq_len, std::int64_t batch,
                     std::int64_t max_tokens);

// `count` tokens chosen greedily after `prompt` (recomputing the whole window each step;
// at most the model's context is seen).
std::vector<std::int32_t> greedy_continuation(const GptModel& model, std::vector<std::int32_t> prompt, int count);

}  // namespace forge::gpt
