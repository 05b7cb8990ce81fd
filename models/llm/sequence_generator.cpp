#include "models/llm/sequence_generator.h"

#include "models/llm/tool_calls/tool_prompt.h"

#include <chrono>

namespace forge::llm {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

PromptFormat::PromptFormat(const Model& model) : tokenizer_(Tokenizer::from_gguf(model.file())) {
    if (const gguf::Value* t = model.file().find("tokenizer.chat_template"); t != nullptr && t->string() != nullptr) {
        template_ = *t->string();
    }
}

std::vector<std::int32_t> PromptFormat::chat(std::span<const ChatMessage> messages, ChatOptions options) const {
    return raw(render(messages, std::move(options)));
}

std::string PromptFormat::render(std::span<const ChatMessage> messages, ChatOptions options) const {
    const auto token_text = [&](std::int32_t id) { return id >= 0 ? tokenizer_.token_text(id) : std::string(); };
    options.bos_token = token_text(tokenizer_.bos_id());
    options.eos_token = token_text(tokenizer_.eos_id());
    return tool_calls::render_with_tools(template_, messages, options);
}

std::vector<std::int32_t> PromptFormat::raw(std::string_view text) const { return tokenizer_.encode(text, true, true); }

SequenceGenerator::SequenceGenerator(const Model& model, const Tokenizer& tokenizer, const SessionOptions& options,
                                     const SpeculationOptions& speculation)
    : tokenizer_(tokenizer),
      n_vocab_(static_cast<std::size_t>(model.hparams().n_vocab)),
      session_(model, options),
      speculator_(speculation, session_.n_ctx()) {
    check_draft_vocabulary(model, tokenizer, speculation);
    check(speculator_.max_rows() <= std::max<std::int64_t>(1, options.n_batch),
          "--draft-max {} does not fit a batch of {} tokens", speculator_.max_rows() - 1, options.n_batch);
    // Decoding appends without reallocating.
    cached_.reserve(static_cast<std::size_t>(session_.n_ctx()));
    rows_.reserve(static_cast<std::size_t>(speculator_.max_rows()));
    if (speculator_.active())
        rows_logits_.resize(static_cast<std::size_t>(speculator_.max_rows()) * n_vocab_);
}

void SequenceGenerator::reset() {
    session_.reset();
    cached_.clear();
}

GenerationStats SequenceGenerator::generate(std::span<const std::int32_t> prompt, const GenerationOptions& options,
                                    Sampler& sampler, const TextSink& sink) {
    check(!prompt.empty(), "generate: the prompt has no tokens");
    GenerationStats stats;
    stats.prompt_tokens = static_cast<std::int64_t>(prompt.size());
    check(stats.prompt_tokens <= session_.n_ctx(), "the context is full: the prompt has {} tokens, the context holds {}",
          stats.prompt_tokens, session_.n_ctx());
    std::size_t common = 0;
    while (common < prompt.size() && common < cached_.size() && prompt[common] == cached_[common]) ++common;
    if (common == prompt.size()) --common;  // the last prompt token is evaluated for its logits
    // A sliding-window ring that moved past the shared prefix's window starts over.
    if (static_cast<std::int64_t>(common) < session_.min_truncation()) common = 0;
    session_.truncate(static_cast<std::int64_t>(common));
    cached_.resize(common);
    stats.cached_tokens = static_cast<std::int64_t>(common);

    const auto fresh = prompt.subspan(common);
    const auto prompt_start = Clock::now();
    std::span<const float> logits = session_.eval(fresh);
    stats.prompt_s = seconds_since(prompt_start);
    cached_.insert(cached_.end(), fresh.begin(), fresh.end());
    for (std::int32_t id : fresh) sampler.accept(id);

    GenerationState generation(tokenizer_, options, sampler);
    speculator_.start(prompt, options.sampling);
    std::string piece;
    const auto start = Clock::now();
    // Each pass evaluates the pending token and its draft (none without speculation), and the
    // verdict keeps what the model agrees with (models/llm/speculator.h).
    Verdict verdict = speculator_.verify(generation, logits, sink);
    while (true) {
        if (!verdict.next) break;
        if (verdict.cancelled) {
            generation.finish(FinishReason::Cancelled, piece);
            break;
        }
        if (session_.n_past() >= session_.n_ctx()) {
            generation.finish(FinishReason::ContextFull, piece);
            if (!piece.empty()) sink(piece);
            break;
        }
        rows_.assign(1, *verdict.next);
        const std::span<const std::int32_t> draft = speculator_.draft(*verdict.next, session_.n_ctx() - session_.n_past() - 1);
        rows_.insert(rows_.end(), draft.begin(), draft.end());
        const auto n_draft = static_cast<std::int64_t>(draft.size());
        if (n_draft == 0) {
            logits = session_.eval(rows_);
        } else {
            const auto all = std::span(rows_logits_).first(rows_.size() * n_vocab_);
            session_.eval(rows_, all);
            logits = all;
        }
        cached_.insert(cached_.end(), rows_.begin(), rows_.end());
        verdict = speculator_.verify(generation, logits, sink);
        const std::int64_t rejected = n_draft - verdict.accepted;
        session_.truncate(session_.n_past() - rejected);
        cached_.resize(static_cast<std::size_t>(session_.n_past()));
    }
    stats.generate_s = seconds_since(start);
    stats.generated_tokens = generation.generated();
    stats.drafted_tokens = speculator_.drafted();
    stats.accepted_tokens = speculator_.accepted();
    answer_ = generation.tokens();
    stats.finish = generation.finish_reason();
    return stats;
}

}  // namespace forge::llm
