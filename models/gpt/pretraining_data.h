// Pretraining's TrainingData (trainer.h): the packed corpus of corpus.h, rows drawn by
// RowSampler, validated by bits per byte on the held-out end of the stream and a greedy
// continuation of --sample-prompt.
#pragma once

#include "models/gpt/corpus.h"
#include "models/gpt/trainer.h"
#include "models/llm/tokenizer/tokenizer.h"

namespace forge::gpt {

class PretrainingData final : public TrainingData {
public:
    // Reads and tokenizes config.data (throws naming the file on bad input).
    PretrainingData(const TrainConfig& config, const llm::Tokenizer& tokenizer);

    void rows(std::int64_t first, std::int64_t count, Tensor& inputs, Tensor& targets) override;
    void validate(const GptModel& model, std::int64_t micro_batch, StepReport& r) override;

private:
    const llm::Tokenizer& tokenizer_;
    std::int64_t seq_len_, eval_tokens_;
    std::string sample_prompt_;
    int sample_tokens_;
    Corpus corpus_;
    RowSampler sampler_;
};

}  // namespace forge::gpt
