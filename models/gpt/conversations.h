// Conversations for supervised fine-tuning: OpenAI-shaped JSON lines
// ({"messages": [{"role": ..., "content": ...}, ...]}) rendered through the model's chat
// template, tokenized exactly as `forge chat` tokenizes a prompt, with a mask that marks the
// tokens of the assistant's replies (the only ones SFT trains on), then packed whole into
// rows of a fixed length.
//
// The mask comes from the rendered text: the template renders the conversation up to each
// assistant message with the generation prompt (P) and through it without (R); R must
// extend P, and R's bytes past P are the reply with its end-of-turn marker. A token is
// trained when its first byte lies in such a span. This works for any template that renders
// conversations as prefixes of each other (ChatML, Llama 3, forge's own), and the token ids
// are those of the whole text, so training sees what inference will.
#pragma once

#include "core/tensor.h"
#include "models/llm/chat_template/chat_template.h"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {
class Tokenizer;
}

namespace forge::gpt {

struct Conversation {
    std::vector<llm::ChatMessage> messages;
    std::string source;  // "FILE:LINE", for errors
};

// Every non-blank line of a JSONL file. Throws "FILE:LINE: ..." naming what is wrong
// (not JSON, no "messages" array, a role or content that is not a string, no assistant message).
std::vector<Conversation> read_conversations(const std::filesystem::path& path);

struct TokenizedConversation {
    std::vector<std::int32_t> tokens;  // BOS (when the tokenizer adds one), then the rendered text
    std::vector<std::uint8_t> trained;  // 1: a token of an assistant reply
    std::int64_t prompt_tokens = 0;     // tokens before the first trained one
};

TokenizedConversation tokenize_conversation(const Conversation& conversation, std::string_view chat_template,
                                            const llm::Tokenizer& tokenizer);

// Conversations packed whole, in order, into rows of seq_len + 1 tokens: inputs are a row's
// first seq_len tokens, targets the next token where it is trained, else kNoTarget (prompts,
// and the padding after a row's last conversation). A conversation longer than a row is an
// error naming its line.
struct PackedRows {
    Tensor inputs, targets;  // [rows, seq_len] i32
    std::int64_t conversations = 0;
    std::int64_t trained_tokens = 0;
    std::int64_t rows() const { return inputs.size(0); }
};

PackedRows pack_conversations(std::span<const TokenizedConversation> conversations,
                              std::span<const std::string> sources, std::int64_t seq_len, std::int32_t pad);

}  // namespace forge::gpt
