// Text generation for one sequence at a time on a Session: prompt (a conversation through the
// model's chat template, or raw text) -> tokens, reuse of the prefix the session's KV cache
// already holds, then GenerationState (models/llm/generation_state.h) until it ends, streaming each safe
// text piece to a callback; with speculation on, several tokens per forward pass
// (models/llm/speculator.h), the same tokens. `forge chat` is a loop over this. Many sequences at once: the
// Scheduler (models/llm/scheduler.h), which drives the same GenerationState.
#pragma once

#include "models/llm/chat_template/chat_template.h"
#include "models/llm/generation_state.h"
#include "models/llm/model.h"
#include "models/llm/sampler.h"
#include "models/llm/session.h"
#include "models/llm/speculator.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

// A model's text side: its tokenizer and chat template, and prompts made with them.
class PromptFormat {
public:
    explicit PromptFormat(const Model& model);

    const Tokenizer& tokenizer() const { return tokenizer_; }
    // The conversation through the GGUF's chat template (ChatML when it has none), with the
    // tokenizer's BOS/EOS texts filled in; then tokenized (special tokens parsed, BOS as the
    // file asks). `options.tools`, assistant tool_calls and tool messages go through the
    // template too, or are spelled out in messages when it knows no tools (tool_calls/tool_prompt.h).
    std::vector<std::int32_t> chat(std::span<const ChatMessage> messages, ChatOptions options) const;
    // The same conversation as text, before tokenizing (a server checks its length first).
    std::string render(std::span<const ChatMessage> messages, ChatOptions options) const;
    // The GGUF's chat template text (empty when it has none): how the model writes tool calls.
    const std::string& chat_template() const { return template_; }
    // Plain text, tokenized the same way.
    std::vector<std::int32_t> raw(std::string_view text) const;

private:
    Tokenizer tokenizer_;
    std::string template_;
};

class SequenceGenerator {
public:
    SequenceGenerator(const Model& model, const Tokenizer& tokenizer, const SessionOptions& options,
                      const SpeculationOptions& speculation = {});

    // Evaluate what the session lacks of `prompt` (the longest common prefix with what it
    // holds is kept; at least one token is evaluated), then generate. `sampler` may carry state
    // across calls (a chat's penalty history and random stream): it accepts the new prompt
    // tokens and every generated one.
    GenerationStats generate(std::span<const std::int32_t> prompt, const GenerationOptions& options, Sampler& sampler,
                             const TextSink& sink);

    void reset();  // forget what the cache holds
    const Session& session() const { return session_; }
    const std::vector<std::int32_t>& cached() const { return cached_; }
    const std::vector<std::int32_t>& answer() const { return answer_; }  // the last call's generated tokens

private:
    const Tokenizer& tokenizer_;
    std::size_t n_vocab_;
    Session session_;
    Speculator speculator_;
    std::vector<std::int32_t> rows_;    // one pass: the pending token and its draft
    std::vector<float> rows_logits_;    // [rows, n_vocab]
    std::vector<std::int32_t> cached_;  // the tokens in the KV cache, in order
    std::vector<std::int32_t> answer_;
};

}  // namespace forge::llm
