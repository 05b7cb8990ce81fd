#include "app/serve/responses_api.h"

#include "app/serve/field_names.h"
#include "app/serve/json_reply.h"
#include "app/serve/http_server.h"
#include "app/serve/request_fields.h"
#include "app/serve/server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <array>
#include <chrono>

namespace forge::app::serve {

namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

ordered message_item(const ordered& item, const std::string& at) {
    std::string role = string_member(item, at, "role", true);
    if (role != "user" && role != "assistant" && role != "system" && role != "developer")
        throw invalid_request(fmt::format("'{}.role' must be one of user, assistant, system, developer; got '{}'", at, role), at + ".role");
    if (role == "developer") role = "system";
    return {{"role", role}, {"content", text_parts(required_member(item, at, "content"), at + ".content", {"input_text", "output_text"})}};
}

// A call the model made earlier: joins the assistant turn it belongs to (the previous message
// when that is the assistant's), as chat's tool_calls.
void append_call(const ordered& item, const std::string& at, ordered& messages) {
    const std::string id = string_member(item, at, "call_id", true);
    const std::string name = string_member(item, at, "name", true);
    const std::string arguments = string_member(item, at, "arguments", true);
    if (!ordered::accept(arguments)) throw invalid_request(fmt::format("'{}.arguments' is not valid JSON", at), at + ".arguments");
    const ordered call = {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
    if (messages.empty() || messages.back()["role"] != "assistant") messages.push_back({{"role", "assistant"}, {"content", ""}});
    ordered& turn = messages.back();
    if (!turn.contains("tool_calls")) turn["tool_calls"] = ordered::array();
    turn["tool_calls"].push_back(call);
}

// A reasoning item the model wrote before its message or call: that assistant turn's
// reasoning_content (gpt-oss's template keeps it for a turn that calls a tool; Qwen3's drops it
// from turns before the last question). Its reasoning_text content, not its summary.
void append_reasoning(const ordered& item, const std::string& at, ordered& messages) {
    const ordered* content = field(item, "content");
    const std::string text = content != nullptr ? text_parts(*content, at + ".content", {"reasoning_text"}) : "";
    if (!text.empty()) messages.push_back({{"role", "assistant"}, {"content", ""}, {"reasoning_content", text}});
}

// The assistant turn a reasoning item opened, its message not yet seen.
bool awaits_answer(const ordered& messages) {
    if (messages.empty()) return false;
    const ordered& last = messages.back();
    return last["role"] == "assistant" && last.contains("reasoning_content") && last["content"] == "" && !last.contains("tool_calls");
}

void append_input(const ordered& body, ordered& messages) {
    const ordered& input = required_member(body, "", "input");
    if (input.is_string()) {
        messages.push_back({{"role", "user"}, {"content", input}});
        return;
    }
    if (!input.is_array()) throw wrong_type("input", "a string or an array of input items");
    for_each_object(input, "input", [&](const ordered& item, const std::string& at) {
        const std::string type = string_member(item, at, "type", false);
        if (type.empty() || type == "message") {
            ordered message = message_item(item, at);
            if (message["role"] == "assistant" && awaits_answer(messages)) messages.back()["content"] = message["content"];
            else messages.push_back(std::move(message));
        } else if (type == "reasoning") {
            append_reasoning(item, at, messages);
        } else if (type == "function_call") {
            append_call(item, at, messages);
        } else if (type == "function_call_output") {
            messages.push_back({{"role", "tool"},
                                {"tool_call_id", string_member(item, at, "call_id", true)},
                                {"content", text_parts(required_member(item, at, "output"), at + ".output", {"input_text", "output_text"})}});
        } else {
            throw unsupported(at + ".type", fmt::format("input items of type '{}' (forge takes message, function_call, "
                                                        "function_call_output, reasoning)", type));
        }
    });
}

// Responses' flat function tools -> chat's nested ones.
ordered chat_tools(const ordered& tools) {
    if (!tools.is_array()) throw wrong_type("tools", "an array of tools");
    ordered out = ordered::array();
    for_each_object(tools, "tools", [&](const ordered& tool, const std::string& at) {
        const std::string type = string_member(tool, at, "type", true);
        if (type != "function") throw unsupported(at + ".type", fmt::format("tools of type '{}' (only function tools)", type));
        ordered function = {{"name", string_member(tool, at, "name", true)}};
        copy_members(tool, function, {"description", "parameters", "strict"});
        out.push_back({{"type", "function"}, {"function", function}});
    });
    return out;
}

ordered chat_tool_choice(const ordered& choice) {
    if (choice.is_string()) return choice;
    if (!choice.is_object()) throw wrong_type("tool_choice", "'auto', 'none', 'required' or {\"type\": \"function\", \"name\": ...}");
    const std::string type = string_member(choice, "tool_choice", "type", true);
    if (type != "function") throw unsupported("tool_choice.type", fmt::format("tool_choice of type '{}' (only function)", type));
    return {{"type", "function"}, {"function", {{"name", string_member(choice, "tool_choice", "name", true)}}}};
}

// text.format -> response_format.
std::optional<ordered> chat_response_format(const ordered& text) {
    if (!text.is_object()) throw wrong_type("text", "an object");
    if (const ordered* verbosity = field(text, "verbosity"); verbosity != nullptr && !verbosity->is_string())
        throw wrong_type("text.verbosity", "a string");
    const ordered* format = field(text, "format");
    if (format == nullptr) return std::nullopt;
    if (!format->is_object()) throw wrong_type("text.format", "an object");
    const std::string type = string_member(*format, "text.format", "type", true);
    if (type == "text") return std::nullopt;
    if (type == "json_object") return ordered{{"type", "json_object"}};
    if (type != "json_schema")
        throw invalid_request(fmt::format("'text.format.type' must be text, json_object or json_schema; got '{}'", type), "text.format.type");
    ordered schema = {{"name", string_member(*format, "text.format", "name", false)}};
    copy_members(*format, schema, {"schema", "strict", "description"});
    return ordered{{"type", "json_schema"}, {"json_schema", schema}};
}

// Fields of the Responses API that ask for what forge does not do.
void refuse_unsupported(const ordered& body) {
    if (const ordered* background = field(body, "background"); background != nullptr && *background != false)
        throw unsupported("background", "background responses (send the request and wait, or stream it)");
    if (field(body, "conversation") != nullptr) throw unsupported("conversation", "the Conversations API (send previous_response_id)");
    if (field(body, "prompt") != nullptr) throw unsupported("prompt", "stored prompt templates");
    if (const ordered* truncation = field(body, "truncation"); truncation != nullptr && *truncation != "disabled")
        throw unsupported("truncation", "truncation 'auto' (a conversation longer than the context is refused)");
    if (const ordered* top = field(body, "top_logprobs"); top != nullptr && *top != 0)
        throw unsupported("top_logprobs", "log-probabilities in the Responses API (use /v1/chat/completions)");
}

// What the response object repeats of the request (OpenAI's defaults where it said nothing).
json echo_of(const ordered& body, bool store) {
    const auto given = [&](const char* name, json fallback) {
        const ordered* value = field(body, name);
        return value != nullptr ? json(*value) : fallback;
    };
    return {{"instructions", given("instructions", nullptr)},
            {"max_output_tokens", given("max_output_tokens", nullptr)},
            {"previous_response_id", given("previous_response_id", nullptr)},
            {"store", store},
            {"temperature", given("temperature", 1.0)},
            {"top_p", given("top_p", 1.0)},
            {"tool_choice", given("tool_choice", "auto")},
            {"tools", given("tools", json::array())},
            {"text", given("text", {{"format", {{"type", "text"}}}})},
            {"parallel_tool_calls", given("parallel_tool_calls", true)},
            {"metadata", given("metadata", json::object())},
            {"user", given("user", nullptr)},
            {"truncation", "disabled"},
            {"reasoning", {{"effort", nullptr}, {"summary", nullptr}}}};
}

std::int64_t now_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ApiError response_not_found(const std::string& id) {
    return ApiError(404, fmt::format("Response with id '{}' not found.", id), "invalid_request_error", {}, "not_found");
}

}  // namespace

// --- the store ---

void ResponseStore::put(const std::string& id, StoredResponse response) {
    const std::size_t bytes = response.conversation.dump().size() + response.response.dump().size();
    std::lock_guard lock(mutex_);
    if (const auto it = by_id_.find(id); it != by_id_.end()) {
        bytes_ -= it->second->bytes;
        entries_.erase(it->second);
        by_id_.erase(it);
    }
    entries_.push_front({id, std::move(response), bytes});
    by_id_[id] = entries_.begin();
    bytes_ += bytes;
    while (entries_.size() > 1 && (entries_.size() > kMaxStoredResponses || bytes_ > kMaxStoredBytes)) {
        bytes_ -= entries_.back().bytes;
        by_id_.erase(entries_.back().id);
        entries_.pop_back();
    }
}

std::optional<StoredResponse> ResponseStore::get(const std::string& id) {
    std::lock_guard lock(mutex_);
    const auto it = by_id_.find(id);
    if (it == by_id_.end()) return std::nullopt;
    entries_.splice(entries_.begin(), entries_, it->second);  // now the most recently used
    return it->second->response;
}

bool ResponseStore::erase(const std::string& id) {
    std::lock_guard lock(mutex_);
    const auto it = by_id_.find(id);
    if (it == by_id_.end()) return false;
    bytes_ -= it->second->bytes;
    entries_.erase(it->second);
    by_id_.erase(it);
    return true;
}

// --- the request ---

ResponsesRequest translate_responses_request(const ordered& body, ResponseStore& store) {
    refuse_unsupported(body);
    ResponsesRequest r;
    if (const ordered* v = field(body, "stream")) {
        if (!v->is_boolean()) throw wrong_type("stream", "a boolean");
        r.stream = v->get<bool>();
    }
    if (const ordered* v = field(body, "store")) {
        if (!v->is_boolean()) throw wrong_type("store", "a boolean");
        r.store = v->get<bool>();
    }
    r.conversation = ordered::array();
    if (const ordered* previous = field(body, "previous_response_id")) {
        if (!previous->is_string()) throw wrong_type("previous_response_id", "a string");
        const std::optional<StoredResponse> stored = store.get(previous->get<std::string>());
        if (!stored)
            throw ApiError(400, fmt::format("Previous response with id '{}' not found.", previous->get<std::string>()),
                           "invalid_request_error", "previous_response_id", "previous_response_not_found");
        r.conversation = stored->conversation;
    }
    append_input(body, r.conversation);
    ordered messages = ordered::array();
    if (const ordered* instructions = field(body, "instructions")) {
        if (!instructions->is_string()) throw wrong_type("instructions", "a string");
        messages.push_back({{"role", "system"}, {"content", *instructions}});
    }
    messages.insert(messages.end(), r.conversation.begin(), r.conversation.end());
    if (messages.empty()) throw invalid_request("'input' must not be empty", "input");

    ordered& chat = r.chat_body;
    chat = {{"messages", messages}, {"stream", r.stream}};
    if (const ordered* v = field(body, "max_output_tokens")) {
        if (!v->is_number_integer() || v->get<std::int64_t>() < 1) throw wrong_type("max_output_tokens", "an integer of at least 1");
        chat["max_tokens"] = *v;
    }
    if (const ordered* v = field(body, "tools")) chat["tools"] = chat_tools(*v);
    if (const ordered* v = field(body, "tool_choice")) chat["tool_choice"] = chat_tool_choice(*v);
    if (const ordered* v = field(body, "text"); v != nullptr)
        if (std::optional<ordered> format = chat_response_format(*v)) chat["response_format"] = *format;
    // The rest means the same in both APIs (top_k ... repeat_penalty, seed and grammar:
    // llama-server's extensions, as its chat route takes them).
    copy_members(body, chat, {"temperature", "top_p", "parallel_tool_calls", "model", "user", "metadata", "top_k", "min_p", "seed",
                              "presence_penalty", "frequency_penalty", "repeat_penalty", "grammar"});
    r.echo = echo_of(body, r.store);
    return r;
}

ApiError in_responses_terms(const ApiError& error) {
    static constexpr std::array<FieldName, 5> kNames{{
        {"response_format.json_schema", "text.format"},
        {"response_format", "text.format"},
        {"max_tokens", "max_output_tokens"},
        {"messages[#]", "input"},
        {"messages", "input"},
    }};
    return renamed(renamed(error, kNames), kFlatToolNames);
}

// --- the response and its events ---

ResponseWriter::ResponseWriter(ResponseIdentity identity, json echo, ResponseDone on_done) : on_done_(std::move(on_done)) {
    response_ = {{"id", identity.id},   {"object", "response"},          {"created_at", identity.created_at},
                 {"status", "in_progress"}, {"error", nullptr},           {"incomplete_details", nullptr},
                 {"model", identity.model}, {"output", json::array()},    {"usage", nullptr}};
    response_.update(echo);
}

std::string ResponseWriter::event(const std::string& type, json data) {
    data["type"] = type;
    data["sequence_number"] = sequence_++;
    return sse_named_event(type, data);
}

std::string ResponseWriter::begin() {
    std::string out = event("response.created", {{"response", response_}});
    out += event("response.in_progress", {{"response", response_}});
    return out;
}

// A message or reasoning item and its one text part (output_text, reasoning_text).
std::string ResponseWriter::open_text_item(json item, json part) {
    json& output = response_["output"];
    open_ = output.size();
    output.push_back(item);
    output[*open_]["content"].push_back(part);
    std::string out = event("response.output_item.added", {{"output_index", *open_}, {"item", item}});
    out += event("response.content_part.added", {{"item_id", item["id"]}, {"output_index", *open_}, {"content_index", 0}, {"part", part}});
    return out;
}

std::string ResponseWriter::open_message() {
    return open_text_item({{"id", random_id("msg_", 24)}, {"type", "message"}, {"status", "in_progress"}, {"role", "assistant"}, {"content", json::array()}},
                          {{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}});
}

// The model's reasoning as it wrote it: reasoning_text content (summary is for a summary of
// it, which forge does not write), as OpenAI's gpt-oss reference server returns it.
std::string ResponseWriter::open_reasoning() {
    return open_text_item({{"id", random_id("rs_", 24)}, {"type", "reasoning"}, {"status", "in_progress"}, {"summary", json::array()}, {"content", json::array()}},
                          {{"type", "reasoning_text"}, {"text", ""}});
}

std::string ResponseWriter::open_call(const llm::tool_calls::ToolCallDelta& delta) {
    json& output = response_["output"];
    const json item = {{"id", random_id("fc_", 24)}, {"type", "function_call"}, {"status", "in_progress"},
                       {"call_id", delta.id},        {"name", delta.name},      {"arguments", ""}};
    open_ = output.size();
    output.push_back(item);
    calls_.push_back({{"id", delta.id}, {"type", "function"}, {"function", {{"name", delta.name}, {"arguments", ""}}}});
    return event("response.output_item.added", {{"output_index", *open_}, {"item", item}});
}

std::string ResponseWriter::close_item(const char* status) {
    json& item = response_["output"][*open_];
    const std::size_t index = *open_;
    open_.reset();
    item["status"] = status;
    std::string out;
    if (item["type"] == "message" || item["type"] == "reasoning") {
        const json& part = item["content"][0];
        if (item["type"] == "message") {
            out += event("response.output_text.done", {{"item_id", item["id"]}, {"output_index", index}, {"content_index", 0},
                                                       {"text", part["text"]}, {"logprobs", json::array()}});
        } else {
            out += event("response.reasoning_text.done", {{"item_id", item["id"]}, {"output_index", index}, {"content_index", 0}, {"text", part["text"]}});
        }
        out += event("response.content_part.done", {{"item_id", item["id"]}, {"output_index", index}, {"content_index", 0}, {"part", part}});
    } else {
        out += event("response.function_call_arguments.done",
                     {{"item_id", item["id"]}, {"output_index", index}, {"name", item["name"]}, {"arguments", item["arguments"]}});
    }
    out += event("response.output_item.done", {{"output_index", index}, {"item", item}});
    return out;
}

std::string ResponseWriter::pieces(const llm::AnswerPiece& parsed, std::span<const llm::TokenLogprob>) {
    std::string out;
    json& output = response_["output"];
    // Appends to the open item of `type`'s text part (closing another open item first).
    const auto add_text = [&](const char* type, const std::string& text) {
        if (open_ && output[*open_]["type"] != type) out += close_item("completed");
        if (!open_) out += type == std::string_view("message") ? open_message() : open_reasoning();
        json& part = output[*open_]["content"][0];
        part["text"] = part["text"].get<std::string>() + text;
    };
    if (!parsed.reasoning.empty()) {
        add_text("reasoning", parsed.reasoning);
        reasoning_ += parsed.reasoning;
        out += event("response.reasoning_text.delta",
                     {{"item_id", output[*open_]["id"]}, {"output_index", *open_}, {"content_index", 0}, {"delta", parsed.reasoning}});
    }
    if (!parsed.content.empty()) {
        add_text("message", parsed.content);
        text_ += parsed.content;
        out += event("response.output_text.delta", {{"item_id", output[*open_]["id"]}, {"output_index", *open_}, {"content_index", 0},
                                                    {"delta", parsed.content}, {"logprobs", json::array()}});
    }
    for (const llm::tool_calls::ToolCallDelta& delta : parsed.tool_calls) {
        if (!delta.id.empty()) {
            if (open_) out += close_item("completed");
            out += open_call(delta);
        }
        if (delta.arguments.empty() || !open_) continue;
        json& item = output[*open_];
        item["arguments"] = item["arguments"].get<std::string>() + delta.arguments;
        calls_.back()["function"]["arguments"] = item["arguments"];
        out += event("response.function_call_arguments.delta", {{"item_id", item["id"]}, {"output_index", *open_}, {"delta", delta.arguments}});
    }
    return out;
}

std::string ResponseWriter::finish(const llm::RequestResult& result, bool) {
    const bool cut = cut_by_length(result.stats.finish);
    std::string out;
    if (response_["output"].empty()) out += open_message();  // an empty answer is still a message
    if (open_) out += close_item(cut ? "incomplete" : "completed");
    response_["status"] = cut ? "incomplete" : "completed";
    if (cut) response_["incomplete_details"] = {{"reason", "max_output_tokens"}};
    const llm::GenerationStats& s = result.stats;
    response_["usage"] = {{"input_tokens", s.prompt_tokens},
                          {"input_tokens_details", {{"cached_tokens", s.cached_tokens}}},
                          {"output_tokens", s.generated_tokens},
                          {"output_tokens_details", {{"reasoning_tokens", 0}}},
                          {"total_tokens", s.prompt_tokens + s.generated_tokens}};
    // The assistant's turn as the next request's history sees it: a call cut short is left out
    // (its arguments are no JSON the template could read).
    ordered turn = {{"role", "assistant"}, {"content", text_}};
    if (!reasoning_.empty()) turn["reasoning_content"] = reasoning_;
    ordered calls = ordered::array();
    for (const ordered& call : calls_) {
        if (ordered::accept(call["function"]["arguments"].get<std::string>())) calls.push_back(call);
    }
    if (!calls.empty()) turn["tool_calls"] = calls;
    if (on_done_) on_done_(response_, turn);
    out += event(cut ? "response.incomplete" : "response.completed", {{"response", response_}});
    return out;
}

std::string ResponseWriter::failure(const ApiError& error) {
    const std::string code = error.code().empty() ? error.type() : error.code();
    response_["status"] = "failed";
    response_["error"] = {{"code", code}, {"message", error.what()}};
    std::string out = event("error", {{"code", code}, {"message", error.what()}, {"param", nullptr}});
    out += event("response.failed", {{"response", response_}});
    return out;
}

// --- the routes ---

void Server::add_responses_routes() {
    responses_ = std::make_unique<ResponseStore>();
    HttpServer& http = *http_;
    for (const char* path : {"/v1/responses", "/responses"})
        http.Post(path, [this](const httplib::Request& req, httplib::Response& res) { create_response(req, res); });
    for (const char* path : {R"(/v1/responses/([^/]+))", R"(/responses/([^/]+))"}) {
        http.Get(path, [this](const httplib::Request& req, httplib::Response& res) {
            const std::string id = req.matches[1];
            const std::optional<StoredResponse> stored = responses_->get(id);
            if (!stored) return send_error(res, response_not_found(id));
            send_json(res, 200, stored->response);
        });
        http.Delete(path, [this](const httplib::Request& req, httplib::Response& res) {
            const std::string id = req.matches[1];
            if (!responses_->erase(id)) return send_error(res, response_not_found(id));
            send_json(res, 200, {{"id", id}, {"object", "response"}, {"deleted", true}});
        });
    }
}

void Server::create_response(const httplib::Request& req, httplib::Response& res) {
    try {
        const nlohmann::ordered_json body = parse_body(req.body);
        const ModelLease lease = model_for(body);
        const ChatModel& e = lease->chat_model();
        ResponsesRequest translated = translate_responses_request(body, *responses_);
        try {
            CompletionRequest request = parse_request(Endpoint::ChatCompletions, translated.chat_body, request_limits(e));
            const RunningRequest running = start(lease, request, "call_", true);
            ResponseIdentity identity{random_id("resp_", 24), now_seconds(), lease->name};
            ResponseDone on_done;
            if (translated.store) {
                on_done = [store = responses_.get(), id = identity.id, conversation = translated.conversation](
                              const json& response, const ordered& turn) mutable {
                    conversation.push_back(turn);
                    store->put(id, {std::move(conversation), response});
                };
            }
            auto writer = std::make_shared<ResponseWriter>(std::move(identity), std::move(translated.echo), std::move(on_done));
            if (answered_whole(res, running, request.stream, writer)) send_json(res, 200, writer->response());
        } catch (const ApiError& error) {
            throw in_responses_terms(error);
        }
    } catch (const ApiError& error) {
        metrics_.record_rejected();
        send_error(res, error);
    }
}

}  // namespace forge::app::serve
