#include "models/llm/draft_model.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>

namespace forge::llm {

std::shared_ptr<const DraftModel> DraftModel::load(const std::string& path) {
    Model model = Model::load(path);
    Tokenizer tokenizer = Tokenizer::from_gguf(model.file());
    return std::make_shared<const DraftModel>(DraftModel{path, std::move(model), std::move(tokenizer)});
}

void check_same_vocabulary(const Model& target, const Tokenizer& target_tokenizer, const DraftModel& draft) {
    const auto differ = [&](const std::string& what) {
        return Error(fmt::format("--model-draft {}: its vocabulary is not the target model's ({}); the draft model must share "
                                 "the target's tokenizer",
                                 draft.path, what));
    };
    const std::int32_t n = target_tokenizer.n_vocab();
    if (draft.tokenizer.n_vocab() != n)
        throw differ(fmt::format("{} tokens, the target has {}", draft.tokenizer.n_vocab(), n));
    for (std::int32_t id = 0; id < n; ++id) {
        if (draft.tokenizer.token_text(id) != target_tokenizer.token_text(id))
            throw differ(fmt::format("token {} is '{}' in the draft, '{}' in the target", id, draft.tokenizer.token_text(id),
                                     target_tokenizer.token_text(id)));
    }
    if (draft.model.hparams().n_vocab != target.hparams().n_vocab)
        throw differ(fmt::format("{} logits per position, the target has {}", draft.model.hparams().n_vocab,
                                 target.hparams().n_vocab));
}

ModelDrafter::ModelDrafter(std::shared_ptr<const DraftModel> draft, std::int64_t capacity, float min_p)
    : draft_(std::move(draft)), session_(draft_->model, {capacity, 512, infer::KvType::F16}), min_p_(min_p) {
    check(min_p >= 0.0f && min_p <= 1.0f, "--draft-min-p must be 0 to 1, got {}", min_p);
    text_.reserve(static_cast<std::size_t>(capacity));
    cached_.reserve(static_cast<std::size_t>(capacity));
}

void ModelDrafter::reset(std::span<const std::int32_t> prompt, const SamplerOptions& sampling) {
    text_.assign(prompt.begin(), prompt.end());
    // q: the target's temperature and truncation; no penalties (the draft has no history of
    // its own to apply them to, and q may be any distribution the guess is drawn from).
    SamplerOptions q = sampling;
    q.repeat_penalty = 1.0f;
    q.frequency_penalty = q.presence_penalty = 0.0f;
    sampler_ = std::make_unique<Sampler>(q, draft_->model.hparams().n_vocab);
    rng_.seed(sampling.seed ^ 0x9e3779b97f4a7c15ULL);  // not the target's stream
}

void ModelDrafter::push(std::int32_t token) { text_.push_back(token); }

// Roll the cache back to what it shares with the accepted text and evaluate the rest (at least
// the last token: its logits are the first guess's).
std::span<const float> ModelDrafter::catch_up() {
    std::size_t common = 0;
    while (common < cached_.size() && common < text_.size() && cached_[common] == text_[common]) ++common;
    if (common == text_.size()) --common;
    session_.truncate(static_cast<std::int64_t>(common));
    cached_.assign(text_.begin(), text_.end());
    return session_.eval(std::span(text_).subspan(common));
}

// The next guess from the draft's logits, its distribution kept as q_[i]; -1 when the draft
// is not sure enough (--draft-min-p).
std::int32_t ModelDrafter::guess(std::span<const float> logits, std::size_t i) {
    if (min_p_ > 0.0f) {
        const float max_logit = *std::max_element(logits.begin(), logits.end());
        double sum = 0.0;
        for (const float l : logits) sum += std::exp(static_cast<double>(l - max_logit));
        if (1.0 / sum < min_p_) return -1;  // the most likely token's probability
    }
    const std::span<const Sampler::Candidate> q = sampler_->distribution(logits);
    if (q_.size() <= i) q_.resize(i + 1);
    if (sampler_->options().temperature == 0.0f) {
        q_[i].clear();
        return q.front().id;
    }
    q_[i].assign(q.begin(), q.end());
    const std::int32_t id = Sampler::pick(q, Sampler::uniform(rng_));
    std::sort(q_[i].begin(), q_[i].end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return id;
}

void ModelDrafter::propose(std::size_t max, std::vector<std::int32_t>& draft) {
    draft.clear();
    if (max == 0) return;
    std::span<const float> logits = catch_up();
    while (draft.size() < max) {
        const std::int32_t id = guess(logits, draft.size());
        if (id < 0) break;
        draft.push_back(id);
        if (draft.size() == max || draft_->tokenizer.is_end_of_generation(id)) break;
        logits = session_.eval(std::span(&draft.back(), 1));
        cached_.push_back(id);
    }
}

}  // namespace forge::llm
