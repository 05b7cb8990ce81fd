#include "app/serve/openai_response.h"

#include <chrono>
#include <random>

namespace forge::app::serve {

namespace {

using nlohmann::json;

const char* object_name(Endpoint endpoint, bool chunk) {
    if (endpoint == Endpoint::Completions) return "text_completion";
    return chunk ? "chat.completion.chunk" : "chat.completion";
}

json header(const ResponseMeta& meta, bool chunk) {
    return {{"id", meta.id}, {"object", object_name(meta.endpoint, chunk)}, {"created", meta.created}, {"model", meta.model},
            {"system_fingerprint", "forge-" FORGE_VERSION}};
}

json byte_values(std::string_view text) {
    json bytes = json::array();
    for (const char c : text) bytes.push_back(static_cast<unsigned char>(c));
    return bytes;
}

json chat_logprobs(std::span<const llm::TokenLogprob> logprobs, const llm::Tokenizer& tokenizer) {
    json content = json::array();
    for (const llm::TokenLogprob& t : logprobs) {
        const std::string piece = tokenizer.token_to_piece(t.id);
        json top = json::array();
        for (const auto& [id, logprob] : t.top) {
            const std::string alt = tokenizer.token_to_piece(id);
            top.push_back({{"token", alt}, {"logprob", logprob}, {"bytes", byte_values(alt)}});
        }
        content.push_back({{"token", piece}, {"logprob", t.logprob}, {"bytes", byte_values(piece)}, {"top_logprobs", top}});
    }
    return {{"content", content}, {"refusal", nullptr}};
}

json completion_logprobs(std::span<const llm::TokenLogprob> logprobs, const llm::Tokenizer& tokenizer, std::size_t offset) {
    json tokens = json::array(), token_logprobs = json::array(), top_logprobs = json::array(), text_offset = json::array();
    for (const llm::TokenLogprob& t : logprobs) {
        const std::string piece = tokenizer.token_to_piece(t.id);
        tokens.push_back(piece);
        token_logprobs.push_back(t.logprob);
        json top = json::object();
        for (const auto& [id, logprob] : t.top) top[tokenizer.token_to_piece(id)] = logprob;
        top_logprobs.push_back(top);
        text_offset.push_back(offset);
        offset += piece.size();
    }
    return {{"tokens", tokens}, {"token_logprobs", token_logprobs}, {"top_logprobs", top_logprobs}, {"text_offset", text_offset}};
}

json tool_calls_json(std::span<const llm::ChatToolCall> calls) {
    json out = json::array();
    for (const llm::ChatToolCall& call : calls)
        out.push_back({{"id", call.id}, {"type", "function"}, {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
    return out;
}

// A stream's delta.tool_calls: a call's first delta has its id, type and name; the later ones
// pieces of its arguments text.
json tool_call_deltas_json(std::span<const llm::tool_calls::ToolCallDelta> deltas) {
    json out = json::array();
    for (const llm::tool_calls::ToolCallDelta& d : deltas) {
        json call = {{"index", d.index}};
        json function = {{"arguments", d.arguments}};
        if (!d.id.empty()) {
            call["id"] = d.id;
            call["type"] = "function";
            function["name"] = d.name;
        }
        call["function"] = function;
        out.push_back(call);
    }
    return out;
}

}  // namespace

std::string random_id(std::string_view prefix, int n) {
    static constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    thread_local std::mt19937_64 rng{std::random_device{}()};
    std::string id(prefix);
    for (int i = 0; i < n; ++i) id += kAlphabet[rng() % kAlphabet.size()];
    return id;
}

ResponseMeta new_response_meta(Endpoint endpoint, std::string model) {
    std::string id = random_id(endpoint == Endpoint::ChatCompletions ? "chatcmpl-" : "cmpl-", 24);
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return {endpoint, std::move(id), std::chrono::duration_cast<std::chrono::seconds>(now).count(), std::move(model)};
}

std::string finish_reason(llm::FinishReason reason, bool made_calls) {
    // A stop after calls is OpenAI's "tool_calls"; a call cut short by the length stays "length".
    const std::string name = llm::finish_reason_name(reason);
    return made_calls && name == "stop" ? "tool_calls" : name;
}

json usage_json(const llm::GenerationStats& stats) {
    return {{"prompt_tokens", stats.prompt_tokens},
            {"completion_tokens", stats.generated_tokens},
            {"total_tokens", stats.prompt_tokens + stats.generated_tokens},
            {"prompt_tokens_details", {{"cached_tokens", stats.cached_tokens}}}};
}

// llama-server's per-response timings; the draft counts only when speculation drafted.
json timings_json(const llm::GenerationStats& stats) {
    const auto per = [](double ms, std::int64_t n) { return n > 0 ? ms / static_cast<double>(n) : 0.0; };
    const auto rate = [](std::int64_t n, double ms) { return ms > 0 ? 1e3 * static_cast<double>(n) / ms : 0.0; };
    const std::int64_t prompt_n = stats.prompt_tokens - stats.cached_tokens;
    const double prompt_ms = stats.prompt_s * 1e3, predicted_ms = stats.generate_s * 1e3;
    json timings = {{"prompt_n", prompt_n},
                    {"prompt_ms", prompt_ms},
                    {"prompt_per_token_ms", per(prompt_ms, prompt_n)},
                    {"prompt_per_second", rate(prompt_n, prompt_ms)},
                    {"predicted_n", stats.generated_tokens},
                    {"predicted_ms", predicted_ms},
                    {"predicted_per_token_ms", per(predicted_ms, stats.generated_tokens)},
                    {"predicted_per_second", rate(stats.generated_tokens, predicted_ms)}};
    if (stats.drafted_tokens > 0) {
        timings["draft_n"] = stats.drafted_tokens;
        timings["draft_n_accepted"] = stats.accepted_tokens;
    }
    return timings;
}

json logprobs_json(Endpoint endpoint, std::span<const llm::TokenLogprob> logprobs, const llm::Tokenizer& tokenizer,
                   std::size_t offset) {
    return endpoint == Endpoint::ChatCompletions ? chat_logprobs(logprobs, tokenizer)
                                                 : completion_logprobs(logprobs, tokenizer, offset);
}

json full_response(const ResponseMeta& meta, const Answer& answer, const llm::Tokenizer& tokenizer) {
    const bool made_calls = !answer.tool_calls.empty();
    json choice = {{"index", 0},
                   {"logprobs", answer.with_logprobs ? logprobs_json(meta.endpoint, answer.logprobs, tokenizer) : json(nullptr)},
                   {"finish_reason", finish_reason(answer.stats.finish, made_calls)}};
    if (meta.endpoint == Endpoint::ChatCompletions) {
        // OpenAI: content is null when the answer is only calls.
        const json content = made_calls && answer.text.empty() ? json(nullptr) : json(answer.text);
        choice["message"] = {{"role", "assistant"}, {"content", content}, {"refusal", nullptr}};
        if (!answer.reasoning.empty()) choice["message"]["reasoning_content"] = answer.reasoning;  // llama-server's field
        if (made_calls) choice["message"]["tool_calls"] = tool_calls_json(answer.tool_calls);
    } else {
        choice["text"] = answer.text;
    }
    if (answer.tokens) choice["tokens"] = *answer.tokens;
    json response = header(meta, false);
    response["choices"] = json::array({choice});
    response["usage"] = usage_json(answer.stats);
    response["timings"] = timings_json(answer.stats);
    return response;
}

json chunk_json(const ResponseMeta& meta, const ChunkParts& parts) {
    json choice = {{"index", 0},
                   {"logprobs", parts.logprobs ? *parts.logprobs : json(nullptr)},
                   {"finish_reason", parts.finish ? json(finish_reason(*parts.finish, parts.made_calls)) : json(nullptr)}};
    if (meta.endpoint == Endpoint::ChatCompletions) {
        json delta = json::object();
        if (parts.first) delta["role"] = "assistant";
        if (parts.first || !parts.text.empty()) delta["content"] = parts.text;
        if (!parts.reasoning.empty()) delta["reasoning_content"] = parts.reasoning;
        if (!parts.tool_calls.empty()) delta["tool_calls"] = tool_call_deltas_json(parts.tool_calls);
        choice["delta"] = delta;
    } else {
        choice["text"] = parts.text;
    }
    json chunk = header(meta, true);
    chunk["choices"] = json::array({choice});
    if (parts.usage_field) chunk["usage"] = nullptr;
    return chunk;
}

json usage_chunk_json(const ResponseMeta& meta, const llm::GenerationStats& stats) {
    json chunk = header(meta, true);
    chunk["choices"] = json::array();
    chunk["usage"] = usage_json(stats);
    chunk["timings"] = timings_json(stats);
    return chunk;
}

std::string dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string sse_event(const json& value) { return "data: " + dump(value) + "\n\n"; }

}  // namespace forge::app::serve
