// llama-server's utility routes, in its shapes (tools/server/README.md upstream):
//   POST /tokenize        {content, add_special?, parse_special?, with_pieces?} -> {tokens}
//   POST /detokenize      {tokens} -> {content}
//   POST /apply-template  {messages, tools?...} -> {prompt}: the chat template's text, unrun
//   GET  /props           the server's and the model's settings (read-only: POST is 501)
//   GET  /slots           each slot of the model's scheduler: busy or not, tokens so far
// Each names its model as every route does: `model` in the body, ?model= on a GET. On an
// embedding-only model (loaded_model.h) /tokenize and /detokenize use its tokenizer, /props
// shows no slots and no template, /slots is [], and /apply-template is 400.
#include "app/serve/api_error.h"
#include "app/serve/http_server.h"
#include "app/serve/json_reply.h"
#include "app/serve/openai_response.h"
#include "app/serve/server.h"
#include "core/utf8.h"

#include <httplib.h>

namespace forge::app::serve {

namespace {

using nlohmann::json;

// A field the route cannot do without, of the kind `is_kind` checks.
const nlohmann::ordered_json& required(const nlohmann::ordered_json& body, const char* name,
                                       bool (nlohmann::ordered_json::*is_kind)() const noexcept, const char* what) {
    const auto it = body.find(name);
    if (it == body.end() || !((*it).*is_kind)()) throw invalid_request(fmt::format("'{}' is required: {}", name, what), name);
    return *it;
}

// An optional boolean field of the body.
bool flag(const nlohmann::ordered_json& body, const char* name, bool fallback) {
    const auto it = body.find(name);
    if (it == body.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) throw invalid_request(fmt::format("'{}' must be true or false", name), name);
    return it->get<bool>();
}

nlohmann::ordered_json object_body(const std::string& text) {
    nlohmann::ordered_json body = parse_body(text);
    if (!body.is_object()) throw invalid_request("The request body must be a JSON object");
    return body;
}

// A token's text as /tokenize's with_pieces gives it: a string when it is valid UTF-8, else
// its bytes (a piece of a character cut between tokens).
json piece(const std::string& text) {
    if (utf8::is_valid(text)) return text;
    json bytes = json::array();
    for (const char c : text) bytes.push_back(static_cast<unsigned char>(c));
    return bytes;
}

// What a request gets when no field of it says otherwise (llama-server's generation_settings).
json default_params(const ServeOptions& options) {
    const llm::SamplerOptions s;
    return {{"n_predict", options.n_predict},
            {"max_tokens", options.n_predict},
            {"temperature", s.temperature},
            {"top_k", s.top_k},
            {"top_p", s.top_p},
            {"min_p", s.min_p},
            {"repeat_penalty", s.repeat_penalty},
            {"repeat_last_n", s.penalty_window},
            {"presence_penalty", s.presence_penalty},
            {"frequency_penalty", s.frequency_penalty},
            {"seed", -1},
            {"stop", json::array()},
            {"stream", false},
            {"samplers", {"penalties", "top_k", "top_p", "min_p", "temperature"}}};
}

json slot_json(std::int64_t id, std::int64_t n_ctx, const llm::SlotState& state, const json& params) {
    return {{"id", id},
            {"id_task", -1},
            {"n_ctx", n_ctx},
            {"speculative", false},
            {"is_processing", state.processing},
            {"params", params},
            {"n_prompt_tokens", state.n_prompt},
            {"n_cached_tokens", state.n_cached},
            {"next_token",
             {{"has_next_token", state.processing}, {"n_remain", state.n_remain}, {"n_decoded", state.n_decoded}}}};
}

}  // namespace

void Server::add_utility_routes() {
    HttpServer& http = *http_;
    const auto route = [this](void (Server::*handler)(const httplib::Request&, httplib::Response&)) {
        return [this, handler](const httplib::Request& req, httplib::Response& res) {
            try {
                (this->*handler)(req, res);
            } catch (const ApiError& error) {
                send_error(res, error);
            }
        };
    };
    http.Post("/tokenize", route(&Server::tokenize));
    http.Post("/detokenize", route(&Server::detokenize));
    http.Post("/apply-template", route(&Server::apply_template));
    http.Get("/props", route(&Server::props));
    http.Post("/props", [](const httplib::Request&, httplib::Response& res) {
        send_json(res, 501, error_body(501, "This server's properties cannot be changed (POST /props)"));
    });
    http.Get("/slots", route(&Server::slots));
}

void Server::tokenize(const httplib::Request& req, httplib::Response& res) {
    const nlohmann::ordered_json body = object_body(req.body);
    const auto& content = required(body, "content", &nlohmann::ordered_json::is_string, "the text to tokenize");
    const ModelLease lease = model_for(body);
    const llm::Tokenizer& tokenizer = lease->tokenizer();
    const std::vector<std::int32_t> ids =
        tokenizer.encode(content.get<std::string>(), flag(body, "add_special", false), flag(body, "parse_special", true));
    json tokens = json::array();
    if (flag(body, "with_pieces", false)) {
        for (const std::int32_t id : ids) tokens.push_back({{"id", id}, {"piece", piece(tokenizer.token_to_piece(id, true))}});
    } else {
        tokens = ids;
    }
    send_json(res, 200, {{"tokens", tokens}});
}

void Server::detokenize(const httplib::Request& req, httplib::Response& res) {
    const nlohmann::ordered_json body = object_body(req.body);
    const auto& tokens = required(body, "tokens", &nlohmann::ordered_json::is_array, "an array of token ids");
    const ModelLease lease = model_for(body);
    const llm::Tokenizer& tokenizer = lease->tokenizer();
    std::vector<std::int32_t> ids;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const auto& id = tokens[i];
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= tokenizer.n_vocab()) {
            throw invalid_request(fmt::format("'tokens[{}]' is not a token id of this model (0 to {})", i, tokenizer.n_vocab() - 1),
                                  fmt::format("tokens[{}]", i));
        }
        ids.push_back(id.get<std::int32_t>());
    }
    send_json(res, 200, {{"content", tokenizer.decode(ids, true)}});
}

// The conversation checked as /v1/chat/completions checks it, then through the template.
void Server::apply_template(const httplib::Request& req, httplib::Response& res) {
    const nlohmann::ordered_json body = object_body(req.body);
    const ModelLease lease = model_for(body);
    const ChatModel& chat = lease->chat_model();
    const CompletionRequest request = parse_request(Endpoint::ChatCompletions, body, request_limits(chat));
    try {
        send_json(res, 200, {{"prompt", chat.format.render(request.messages, request.chat)}});
    } catch (const Error& error) {
        throw invalid_request(fmt::format("The chat template cannot render these messages: {}", error.what()), "messages");
    }
}

void Server::props(const httplib::Request& req, httplib::Response& res) {
    const ModelLease lease = model_for(req.get_param_value("model"));
    const json params = default_params(options_);
    json settings = slot_json(0, lease->n_ctx(), llm::SlotState{}, params);
    // An embedding model has no slots (its requests run on their HTTP thread) and no template.
    send_json(res, 200,
              {{"default_generation_settings", settings},
               {"total_slots", lease->is_chat() ? options_.parallel : 0},
               {"model_alias", lease->name},
               {"model_path", lease->path},
               {"chat_template", lease->is_chat() ? lease->chat->format.chat_template() : std::string()},
               {"modalities", {{"vision", false}, {"audio", false}}},
               {"build_info", options_.build_info},
               {"is_sleeping", false}});
}

void Server::slots(const httplib::Request& req, httplib::Response& res) {
    const ModelLease lease = model_for(req.get_param_value("model"));
    const std::vector<llm::SlotState> states = lease->is_chat() ? lease->chat->scheduler.slot_states() : std::vector<llm::SlotState>{};
    const bool any_free = std::ranges::any_of(states, [](const llm::SlotState& s) { return !s.processing; });
    if (req.get_param_value("fail_on_no_slot") == "1" && lease->is_chat() && !any_free) {
        throw ApiError(503, "No slot is free", "unavailable_error", {}, "no_slot_available");
    }
    const json params = default_params(options_);
    json out = json::array();
    for (std::size_t i = 0; i < states.size(); ++i) out.push_back(slot_json(static_cast<std::int64_t>(i), lease->n_ctx(), states[i], params));
    send_json(res, 200, out);
}

}  // namespace forge::app::serve
