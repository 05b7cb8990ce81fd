#include "app/serve/anthropic_api.h"

#include "app/serve/field_names.h"
#include "app/serve/json_reply.h"
#include "app/serve/http_server.h"
#include "app/serve/request_fields.h"
#include "app/serve/server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <array>

namespace forge::app::serve {

namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

// One Anthropic message -> chat messages: a user's tool results become "tool" messages ahead
// of the user's text (Anthropic puts them first in the turn); an assistant's tool_use blocks
// become its tool_calls, its thinking blocks its reasoning_content (gpt-oss's template keeps
// the thinking of a turn that calls a tool, which is why clients send the blocks back).
void append_message(const ordered& m, const std::string& at, ordered& messages) {
    const std::string role = string_member(m, at, "role", true);
    if (role != "user" && role != "assistant")
        throw invalid_request(fmt::format("'{}.role' must be user or assistant; got '{}'", at, role), at + ".role");
    const ordered& content = required_member(m, at, "content");
    if (content.is_string()) {
        messages.push_back({{"role", role}, {"content", content}});
        return;
    }
    if (!content.is_array()) throw wrong_type(at + ".content", "a string or an array of content blocks");
    std::string text, thinking;
    ordered calls = ordered::array();
    ordered results = ordered::array();
    for_each_object(content, at + ".content", [&](const ordered& b, const std::string& block) {
        const std::string type = string_member(b, block, "type", true);
        if (type == "text") {
            text += string_member(b, block, "text", true);
        } else if (type == "tool_use" && role == "assistant") {
            const ordered& input = required_member(b, block, "input");
            if (!input.is_object()) throw wrong_type(block + ".input", "an object");
            calls.push_back({{"id", string_member(b, block, "id", true)},
                             {"type", "function"},
                             {"function", {{"name", string_member(b, block, "name", true)}, {"arguments", input.dump()}}}});
        } else if (type == "tool_result" && role == "user") {
            const ordered* result = field(b, "content");
            if (const ordered* error = field(b, "is_error"); error != nullptr && !error->is_boolean()) throw wrong_type(block + ".is_error", "a boolean");
            results.push_back({{"role", "tool"},
                               {"tool_call_id", string_member(b, block, "tool_use_id", true)},
                               {"content", result != nullptr ? text_parts(*result, block + ".content", {"text"}) : ""}});
        } else if (type == "thinking" && role == "assistant") {
            thinking += string_member(b, block, "thinking", true);
        } else if (type != "redacted_thinking") {  // (opaque: nothing a template could read)
            throw unsupported(block + ".type", fmt::format("content blocks of type '{}' in a {} message", type, role));
        }
    });
    messages.insert(messages.end(), results.begin(), results.end());
    if (!text.empty() || results.empty() || !calls.empty()) {
        ordered turn = {{"role", role}, {"content", text}};
        if (!thinking.empty()) turn["reasoning_content"] = thinking;
        if (!calls.empty()) turn["tool_calls"] = calls;
        messages.push_back(turn);
    }
}

ordered chat_tools(const ordered& tools) {
    if (!tools.is_array()) throw wrong_type("tools", "an array of tools");
    ordered out = ordered::array();
    for_each_object(tools, "tools", [&](const ordered& tool, const std::string& at) {
        if (const std::string type = string_member(tool, at, "type", false); !type.empty() && type != "custom")
            throw unsupported(at + ".type", fmt::format("server tools ('{}'); only client tools with an input_schema", type));
        ordered function = {{"name", string_member(tool, at, "name", true)}};
        copy_members(tool, function, {"description"});
        function["parameters"] = required_member(tool, at, "input_schema");
        out.push_back({{"type", "function"}, {"function", function}});
    });
    return out;
}

void translate_tool_choice(const ordered& choice, ordered& chat) {
    if (!choice.is_object()) throw wrong_type("tool_choice", "an object with 'type' auto, any, tool or none");
    const std::string type = string_member(choice, "tool_choice", "type", true);
    if (type == "auto" || type == "none") chat["tool_choice"] = type;
    else if (type == "any") chat["tool_choice"] = "required";
    else if (type == "tool") chat["tool_choice"] = {{"type", "function"}, {"function", {{"name", string_member(choice, "tool_choice", "name", true)}}}};
    else throw invalid_request(fmt::format("'tool_choice.type' must be auto, any, tool or none; got '{}'", type), "tool_choice.type");
    if (const ordered* serial = field(choice, "disable_parallel_tool_use")) {
        if (!serial->is_boolean()) throw wrong_type("tool_choice.disable_parallel_tool_use", "a boolean");
        chat["parallel_tool_calls"] = !serial->get<bool>();
    }
}

// Anthropic's error type for a status.
const char* error_type(int status) {
    switch (status) {
        case 400: return "invalid_request_error";
        case 401: return "authentication_error";
        case 403: return "permission_error";
        case 404: return "not_found_error";
        case 413: return "request_too_large";
        case 429: return "rate_limit_error";
        case 503: return "overloaded_error";
        default: return "api_error";
    }
}

std::string event(const char* type, json data) {
    data["type"] = type;
    return sse_named_event(type, data);
}

}  // namespace

// --- the request ---

ThinkingDisplay thinking_display(const ordered& body) {
    const ordered* thinking = field(body, "thinking");
    if (thinking == nullptr) return ThinkingDisplay::Shown;
    if (!thinking->is_object()) throw wrong_type("thinking", "an object");
    const std::string type = string_member(*thinking, "thinking", "type", true);
    if (type == "disabled") return ThinkingDisplay::Disabled;
    if (type != "enabled" && type != "adaptive")
        throw invalid_request(fmt::format("'thinking.type' must be enabled, adaptive or disabled; got '{}'", type), "thinking.type");
    if (const ordered* budget = field(*thinking, "budget_tokens"); budget != nullptr && !budget->is_number_integer())
        throw wrong_type("thinking.budget_tokens", "an integer");
    const std::string display = string_member(*thinking, "thinking", "display", false);
    if (display.empty() || display == "summarized") return ThinkingDisplay::Shown;
    if (display == "omitted") return ThinkingDisplay::Omitted;
    throw invalid_request(fmt::format("'thinking.display' must be summarized or omitted; got '{}'", display), "thinking.display");
}

ordered translate_messages_request(const ordered& body, bool count_only) {
    ordered messages = ordered::array();
    if (const ordered* system = field(body, "system")) messages.push_back({{"role", "system"}, {"content", text_parts(*system, "system", {"text"})}});
    const ordered& list = required_member(body, "", "messages");
    if (!list.is_array() || list.empty()) throw wrong_type("messages", "a non-empty array");
    for_each_object(list, "messages", [&](const ordered& m, const std::string& at) { append_message(m, at, messages); });

    ordered chat = {{"messages", messages}};
    if (!count_only) {
        const ordered* max_tokens = field(body, "max_tokens");
        if (max_tokens != nullptr && (!max_tokens->is_number_integer() || max_tokens->get<std::int64_t>() < 1))
            throw wrong_type("max_tokens", "an integer of at least 1");
        chat["max_tokens"] = max_tokens != nullptr ? *max_tokens : ordered(kAnthropicDefaultMaxTokens);
    }
    if (const ordered* stops = field(body, "stop_sequences")) {
        if (!stops->is_array()) throw wrong_type("stop_sequences", "an array of strings");
        chat["stop"] = *stops;
    }
    if (const ordered* tools = field(body, "tools")) chat["tools"] = chat_tools(*tools);
    if (const ordered* choice = field(body, "tool_choice")) translate_tool_choice(*choice, chat);
    if (field(body, "thinking") != nullptr) chat["chat_template_kwargs"] = {{"enable_thinking", thinking_display(body) != ThinkingDisplay::Disabled}};
    if (const ordered* metadata = field(body, "metadata"); metadata != nullptr && !metadata->is_object()) throw wrong_type("metadata", "an object");
    // grammar: llama-server's extension of its chat route, which its Messages route passes on.
    copy_members(body, chat, {"temperature", "top_p", "top_k", "stream", "model", "grammar"});
    return chat;
}

ApiError in_anthropic_terms(const ApiError& error) {
    static constexpr std::array<FieldName, 3> kNames{{
        {".function.parameters", ".input_schema"},
        {"'stop", "'stop_sequences"},
        {"messages[#]", "messages"},
    }};
    return renamed(renamed(error, kNames), kFlatToolNames);
}

json anthropic_error_body(const ApiError& error) {
    return {{"type", "error"}, {"error", {{"type", error_type(error.status())}, {"message", error.what()}}}};
}

// --- the message and its events ---

MessageWriter::MessageWriter(std::string id, std::string model, std::int64_t input_tokens, std::vector<std::string> stop_sequences,
                             const llm::Tokenizer& tokenizer, ThinkingDisplay thinking)
    : stop_sequences_(std::move(stop_sequences)), tokenizer_(tokenizer), thinking_(thinking) {
    message_ = {{"id", std::move(id)},
                {"type", "message"},
                {"role", "assistant"},
                {"model", std::move(model)},
                {"content", json::array()},
                {"stop_reason", nullptr},
                {"stop_sequence", nullptr},
                {"usage", {{"input_tokens", input_tokens}, {"output_tokens", 0}}}};
}

std::string MessageWriter::begin() {
    std::string out = event("message_start", {{"message", message_}});
    out += event("ping", json::object());
    return out;
}

std::string MessageWriter::open_block(json block) {
    const std::size_t index = message_["content"].size();
    message_["content"].push_back(block);
    arguments_.emplace_back();
    block_open_ = true;
    return event("content_block_start", {{"index", index}, {"content_block", block}});
}

// A thinking block's signature comes last, just before its stop (forge signs nothing: "").
std::string MessageWriter::close_block() {
    block_open_ = false;
    const std::size_t index = message_["content"].size() - 1;
    std::string out;
    if (message_["content"][index]["type"] == "thinking")
        out += event("content_block_delta", {{"index", index}, {"delta", {{"type", "signature_delta"}, {"signature", ""}}}});
    out += event("content_block_stop", {{"index", index}});
    return out;
}

// Appends to the open block of `type` (closing another open block first); its index.
std::size_t MessageWriter::open_for(const char* type, std::string& out) {
    json& content = message_["content"];
    if (block_open_ && content.back()["type"] != type) out += close_block();
    if (!block_open_) {
        if (type == std::string_view("thinking")) out += open_block({{"type", "thinking"}, {"thinking", ""}, {"signature", ""}});
        else out += open_block({{"type", "text"}, {"text", ""}});
    }
    return content.size() - 1;
}

std::string MessageWriter::pieces(const llm::AnswerPiece& parsed, std::span<const llm::TokenLogprob>) {
    std::string out;
    json& content = message_["content"];
    if (!parsed.reasoning.empty()) {
        const std::size_t index = open_for("thinking", out);
        if (thinking_ != ThinkingDisplay::Omitted) {  // omitted: the block and its signature, no text
            content[index]["thinking"] = content[index]["thinking"].get<std::string>() + parsed.reasoning;
            out += event("content_block_delta", {{"index", index}, {"delta", {{"type", "thinking_delta"}, {"thinking", parsed.reasoning}}}});
        }
    }
    if (!parsed.content.empty()) {
        const std::size_t index = open_for("text", out);
        content[index]["text"] = content[index]["text"].get<std::string>() + parsed.content;
        out += event("content_block_delta", {{"index", index}, {"delta", {{"type", "text_delta"}, {"text", parsed.content}}}});
    }
    for (const llm::tool_calls::ToolCallDelta& delta : parsed.tool_calls) {
        if (!delta.id.empty()) {
            if (block_open_) out += close_block();
            out += open_block({{"type", "tool_use"}, {"id", delta.id}, {"name", delta.name}, {"input", json::object()}});
        }
        if (delta.arguments.empty() || !block_open_) continue;
        arguments_.back() += delta.arguments;
        out += event("content_block_delta",
                     {{"index", content.size() - 1}, {"delta", {{"type", "input_json_delta"}, {"partial_json", delta.arguments}}}});
    }
    return out;
}

// Which stop sequence ended the answer: the generated tokens still hold it (the text does not),
// and the one found first is the one that stopped it.
std::string MessageWriter::matched_stop(const llm::RequestResult& result) const {
    const std::string text = tokenizer_.decode(result.tokens);
    std::string best;
    std::size_t best_at = std::string::npos;
    for (const std::string& stop : stop_sequences_) {
        const std::size_t at = stop.empty() ? std::string::npos : text.find(stop);
        if (at < best_at) {
            best_at = at;
            best = stop;
        }
    }
    return best;
}

std::string MessageWriter::finish(const llm::RequestResult& result, bool made_calls) {
    std::string out;
    if (block_open_) out += close_block();
    json& content = message_["content"];
    for (std::size_t i = 0; i < content.size(); ++i) {
        // A call cut by max_tokens keeps an empty input (stop_reason max_tokens says it is cut).
        if (content[i]["type"] == "tool_use" && json::accept(arguments_[i])) content[i]["input"] = json::parse(arguments_[i]);
    }
    const llm::FinishReason reason = result.stats.finish;
    json stop_sequence = nullptr;
    std::string stop_reason = "end_turn";
    if (cut_by_length(reason)) {
        stop_reason = "max_tokens";
    } else if (made_calls) {
        stop_reason = "tool_use";
    } else if (reason == llm::FinishReason::StopString) {
        stop_reason = "stop_sequence";
        stop_sequence = matched_stop(result);
    }
    message_["stop_reason"] = stop_reason;
    message_["stop_sequence"] = stop_sequence;
    message_["usage"]["output_tokens"] = result.stats.generated_tokens;
    message_["usage"]["cache_read_input_tokens"] = result.stats.cached_tokens;
    out += event("message_delta", {{"delta", {{"stop_reason", stop_reason}, {"stop_sequence", stop_sequence}}},
                                   {"usage", {{"output_tokens", result.stats.generated_tokens}}}});
    out += event("message_stop", json::object());
    return out;
}

std::string MessageWriter::failure(const ApiError& error) { return sse_named_event("error", anthropic_error_body(error)); }

// --- the routes ---

void Server::add_anthropic_routes() {
    HttpServer& http = *http_;
    http.Post("/v1/messages", [this](const httplib::Request& req, httplib::Response& res) { create_message(req, res); });
    http.Post("/v1/messages/count_tokens", [this](const httplib::Request& req, httplib::Response& res) { count_message_tokens(req, res); });
}

void Server::create_message(const httplib::Request& req, httplib::Response& res) {
    try {
        const nlohmann::ordered_json body = parse_body(req.body);
        const ModelLease lease = model_for(body);
        const ChatModel& e = lease->chat_model();
        const nlohmann::ordered_json chat = translate_messages_request(body);
        try {
            CompletionRequest request = parse_request(Endpoint::ChatCompletions, chat, request_limits(e));
            const ThinkingDisplay thinking = thinking_display(body);
            const RunningRequest running = start(lease, request, "toolu_", thinking != ThinkingDisplay::Disabled);
            auto writer = std::make_shared<MessageWriter>(random_id("msg_", 24), lease->name, running.prompt_tokens,
                                                          request.generation.stop, e.format.tokenizer(), thinking);
            if (answered_whole(res, running, request.stream, writer)) send_json(res, 200, writer->message());
        } catch (const ApiError& error) {
            throw in_anthropic_terms(error);
        }
    } catch (const ApiError& error) {
        metrics_.record_rejected();
        send_error(res, error, req.path);
    }
}

void Server::count_message_tokens(const httplib::Request& req, httplib::Response& res) {
    try {
        const nlohmann::ordered_json body = parse_body(req.body);
        const ModelLease lease = model_for(body);
        const ChatModel& e = lease->chat_model();
        const nlohmann::ordered_json chat = translate_messages_request(body, true);
        try {
            const CompletionRequest request = parse_request(Endpoint::ChatCompletions, chat, request_limits(e));
            send_json(res, 200, {{"input_tokens", prompt_tokens(e, request).size()}});
        } catch (const ApiError& error) {
            throw in_anthropic_terms(error);
        }
    } catch (const ApiError& error) {
        send_error(res, error, req.path);
    }
}

}  // namespace forge::app::serve
