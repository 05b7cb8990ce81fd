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

SequenceGenerator::SequenceGenerator(const Model& model, const Tokenizer& tokenizer, const SessionOptions& options)
    : tokenizer_(tokenizer), session_(model, options) {
    cached_.reserve(static_cast<std::size_t>(session_.n_ctx()));  // decoding appends without reallocating
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
    std::string piece;
    const auto start = Clock::now();
    while (true) {
        const std::optional<std::int32_t> id = generation.next(logits, piece);
        const bool go_on = piece.empty() || sink(piece);
        if (!id) break;
        if (!go_on) {
            generation.finish(FinishReason::Cancelled, piece);
            break;
        }
        if (session_.n_past() >= session_.n_ctx()) {
            generation.finish(FinishReason::ContextFull, piece);
            if (!piece.empty()) sink(piece);
            break;
        }
        const std::int32_t token = *id;
        logits = session_.eval(std::span(&token, 1));
        cached_.push_back(token);
    }
    stats.generate_s = seconds_since(start);
    stats.generated_tokens = generation.generated();
    answer_ = generation.tokens();
    stats.finish = generation.finish_reason();
    return stats;
}

}  // namespace forge::llm
