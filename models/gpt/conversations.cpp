#include "models/gpt/conversations.h"

#include "core/error.h"
#include "core/json.h"
#include "models/gpt/trainer.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace forge::gpt {
namespace {

llm::ChatMessage parse_message(const nlohmann::json& m, std::size_t index, const std::string& where) {
    check(m.is_object(), "{}: messages[{}] is not an object", where, index);
    for (const char* field : {"role", "content"}) {
        check(m.contains(field) && m[field].is_string(), "{}: messages[{}].{} must be a string", where, index, field);
    }
    return llm::ChatMessage{m["role"].get<std::string>(), m["content"].get<std::string>(), {}};
}

// A conversation nests three levels ({"messages": [{...}]}); the bound is the one for any
// document forge walks after parsing, so a hostile line is a FILE:LINE error, not a deep tree.
Conversation parse_line(const std::string& line, const std::string& where) {
    const nlohmann::json json = parse_json(std::string_view(line), where, kMaxDocumentDepth);
    check(json.is_object() && json.contains("messages") && json["messages"].is_array(),
          "{}: expected {{\"messages\": [...]}}", where);
    Conversation c;
    c.source = where;
    const auto& messages = json["messages"];
    for (std::size_t i = 0; i < messages.size(); ++i) c.messages.push_back(parse_message(messages[i], i, where));
    const bool has_reply = std::any_of(c.messages.begin(), c.messages.end(),
                                       [](const llm::ChatMessage& m) { return m.role == "assistant"; });
    check(has_reply, "{}: no assistant message to train on", where);
    return c;
}

std::string render(std::string_view chat_template, std::span<const llm::ChatMessage> messages, bool generation_prompt,
                   const llm::Tokenizer& tokenizer, const std::string& where) {
    llm::ChatOptions options;
    options.add_generation_prompt = generation_prompt;
    const auto token_text = [&](std::int32_t id) { return id >= 0 ? tokenizer.token_text(id) : std::string(); };
    options.bos_token = token_text(tokenizer.bos_id());
    options.eos_token = token_text(tokenizer.eos_id());
    try {
        return llm::render_chat(chat_template, messages, options);
    } catch (const Error& e) {
        fail("{}: the chat template: {}", where, e.what());
    }
}

}  // namespace

std::vector<Conversation> read_conversations(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    check(in.good(), "--data {}: cannot read the file", path.string());
    std::vector<Conversation> out;
    std::string line;
    for (std::int64_t number = 1; std::getline(in, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        out.push_back(parse_line(line, fmt::format("{}:{}", path.string(), number)));
    }
    check(!in.bad(), "--data {}: read error", path.string());
    check(!out.empty(), "--data {}: no conversations", path.string());
    return out;
}

TokenizedConversation tokenize_conversation(const Conversation& c, std::string_view chat_template,
                                            const llm::Tokenizer& tokenizer) {
    const std::span<const llm::ChatMessage> messages(c.messages);
    const std::string text = render(chat_template, messages, false, tokenizer, c.source);
    // Byte spans [begin, end) of the assistant replies in `text`.
    std::vector<std::pair<std::size_t, std::size_t>> replies;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        if (messages[i].role != "assistant") continue;
        const std::string before = render(chat_template, messages.first(i), true, tokenizer, c.source);
        const std::string through = render(chat_template, messages.first(i + 1), false, tokenizer, c.source);
        check(through.starts_with(before) && text.starts_with(through),
              "{}: the chat template does not render this conversation as a series of prefixes, so the assistant's "
              "tokens cannot be found", c.source);
        replies.emplace_back(before.size(), through.size());
    }
    TokenizedConversation out;
    if (tokenizer.vocab().add_bos() && tokenizer.bos_id() >= 0) {
        out.tokens.push_back(tokenizer.bos_id());
        out.trained.push_back(0);
    }
    std::size_t offset = 0;
    for (const std::int32_t id : tokenizer.encode(text, /*add_special=*/false, /*parse_special=*/true)) {
        const bool in_reply = std::any_of(replies.begin(), replies.end(),
                                          [&](const auto& span) { return offset >= span.first && offset < span.second; });
        out.tokens.push_back(id);
        out.trained.push_back(in_reply ? 1 : 0);
        offset += tokenizer.token_to_piece(id, /*special=*/true).size();
    }
    check(offset == text.size(), "{}: the tokenizer's pieces do not add up to the rendered text ({} of {} bytes)",
          c.source, offset, text.size());
    const auto first = std::find(out.trained.begin(), out.trained.end(), 1);
    out.prompt_tokens = first - out.trained.begin();
    return out;
}

PackedRows pack_conversations(std::span<const TokenizedConversation> conversations,
                              std::span<const std::string> sources, std::int64_t seq_len, std::int32_t pad) {
    const auto row_length = static_cast<std::size_t>(seq_len + 1);
    std::vector<std::vector<std::int32_t>> tokens;
    std::vector<std::vector<std::uint8_t>> trained;
    PackedRows packed;
    for (std::size_t i = 0; i < conversations.size(); ++i) {
        const TokenizedConversation& c = conversations[i];
        check(c.tokens.size() <= row_length, "{}: {} tokens do not fit a row of --seq-len {} + 1", sources[i],
              c.tokens.size(), seq_len);
        if (tokens.empty() || tokens.back().size() + c.tokens.size() > row_length) {
            tokens.emplace_back();
            trained.emplace_back();
        }
        tokens.back().insert(tokens.back().end(), c.tokens.begin(), c.tokens.end());
        trained.back().insert(trained.back().end(), c.trained.begin(), c.trained.end());
        packed.trained_tokens += std::count(c.trained.begin(), c.trained.end(), std::uint8_t{1});
        ++packed.conversations;
    }
    const auto rows = static_cast<std::int64_t>(tokens.size());
    packed.inputs = Tensor::empty({rows, seq_len}, DType::I32);
    packed.targets = Tensor::empty({rows, seq_len}, DType::I32);
    std::int32_t* in = packed.inputs.data<std::int32_t>();
    std::int32_t* out = packed.targets.data<std::int32_t>();
    for (std::int64_t r = 0; r < rows; ++r) {
        tokens[r].resize(row_length, pad);
        trained[r].resize(row_length, 0);
        for (std::int64_t t = 0; t < seq_len; ++t) {
            in[r * seq_len + t] = tokens[r][t];
            out[r * seq_len + t] = trained[r][t + 1] ? tokens[r][t + 1] : kNoTarget;
        }
    }
    return packed;
}

}  // namespace forge::gpt
