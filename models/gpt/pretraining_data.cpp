#include "models/gpt/pretraining_data.h"

#include "models/gpt/evaluate.h"

namespace forge::gpt {

PretrainingData::PretrainingData(const TrainConfig& config, const llm::Tokenizer& tokenizer)
    : tokenizer_(tokenizer),
      seq_len_(config.seq_len),
      eval_tokens_(config.eval_tokens),
      sample_prompt_(config.sample_prompt),
      sample_tokens_(config.sample_tokens),
      corpus_(load_corpus(config.data, tokenizer, config.seq_len)),
      sampler_(corpus_.train, config.seq_len, config.seed) {}

void PretrainingData::rows(std::int64_t first, std::int64_t count, Tensor& inputs, Tensor& targets) {
    sampler_.rows(first, count, inputs, targets);
}

void PretrainingData::validate(const GptModel& model, std::int64_t micro_batch, StepReport& r) {
    r.val_bpb = bits_per_byte(model, corpus_.val, corpus_.token_bytes, seq_len_, micro_batch, eval_tokens_);
    std::vector<std::int32_t> prompt = {tokenizer_.bos_id()};
    const auto text = tokenizer_.encode(sample_prompt_, false, false);
    prompt.insert(prompt.end(), text.begin(), text.end());
    const auto next = greedy_continuation(model, prompt, sample_tokens_);
    r.sample = sample_prompt_ + tokenizer_.decode(next);
}

}  // namespace forge::gpt
