// The HTTP routes of `forge serve` (see server.h for the life of a request).
#include "app/serve/api_error.h"
#include "app/serve/chat_page.h"
#include "app/serve/http_server.h"
#include "app/serve/json_reply.h"
#include "app/serve/openai_response.h"
#include "app/serve/prompt_budget.h"
#include "app/serve/request_stream.h"
#include "app/serve/server.h"
#include "app/serve/socket_stream.h"
#include "app/serve/stream_writer.h"
#include "models/llm/grammar/grammar_constraint.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <set>
#include <string_view>

namespace forge::app::serve {

namespace {

using nlohmann::json;

// Routes that answer without a key, as llama-server's do: the health check, the model lists
// (OpenAI's and Ollama's), Ollama's version probe and the chat page (which asks for the key itself).
bool is_public(const std::string& path) {
    static const std::set<std::string> kPublic = {"/",       "/health",  "/v1/health",  "/v1/models",
                                                  "/models", "/api/tags", "/api/version"};
    return kPublic.contains(path) || path.starts_with("/v1/models/") || path.starts_with("/models/");
}

bool is_health(const std::string& path) { return path == "/health" || path == "/v1/health"; }

// httplib refuses a form-encoded body over 8 KiB itself (after reading it), whatever the body
// limit; `curl -d` without a Content-Type sends one.
bool is_form(const httplib::Request& req) {
    return req.get_header_value("Content-Type").starts_with("application/x-www-form-urlencoded");
}

ApiError form_too_large() {
    return ApiError(413, "A form-encoded body (Content-Type: application/x-www-form-urlencoded) may have at most 8192 bytes; "
                         "send the JSON as 'Content-Type: application/json' (with curl: -H 'Content-Type: application/json')",
                    "invalid_request_error", {}, "payload_too_large");
}

std::string bearer_token(const httplib::Request& req) {
    const std::string header = req.get_header_value("Authorization");
    constexpr std::string_view kBearer = "Bearer ";
    if (header.starts_with(kBearer)) return header.substr(kBearer.size());
    return req.get_header_value("X-Api-Key");
}

// Compare without leaking how many leading characters matched through the time taken.
bool same_key(const std::string& a, const std::string& b) {
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
    return diff == 0;
}

}  // namespace

bool Server::authorized(const httplib::Request& req) const {
    return options_.api_key.empty() || is_public(req.path) || same_key(bearer_token(req), options_.api_key);
}

std::optional<ApiError> Server::admit(const httplib::Request& req) const {
    if (HttpServer::connection().over_limit && !is_health(req.path)) {
        return ApiError(503, fmt::format("The server is busy: it serves at most {} connections at once (--threads-http)",
                                         http_->limits().max_connections),
                        "unavailable_error", {}, "too_many_connections");
    }
    if (CorsPolicy::is_preflight(req)) return std::nullopt;  // answered by the pre-routing handler: no key, no body
    if (!authorized(req)) return unauthorized();
    if (!http_->reserve_body(req)) {
        return ApiError(503, fmt::format("The server is busy: the request bodies it holds leave no room for this one "
                                         "({} MiB at once, --body-budget)", options_.body_budget_mib),
                        "unavailable_error", {}, "body_budget_full");
    }
    return std::nullopt;
}

void Server::add_routes() {
    HttpServer& http = *http_;
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        const std::optional<ApiError> refusal = admit(req);
        if (!refusal && CorsPolicy::is_preflight(req)) {
            cors_.answer_preflight(req, res);
            return httplib::Server::HandlerResponse::Handled;
        }
        cors_.allow(req, res);  // every answer from here on, errors and streams too
        if (!refusal) return httplib::Server::HandlerResponse::Unhandled;
        send_error(res, *refusal, req.path);  // in the envelope of the route's API (json_reply.h)
        return httplib::Server::HandlerResponse::Handled;
    });
    // Statuses httplib sets itself (404 no route, 413 body too large, 400 unreadable request)
    // get the route's envelope too.
    http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        if (res.status == 404) return send_error(res, not_found(fmt::format("Unknown route: {} {}", req.method, req.path)), req.path);
        if (res.status == 413 && is_form(req)) return send_error(res, form_too_large(), req.path);
        if (res.status == 413) return send_error(res, payload_too_large(options_.max_body), req.path);
        send_json(res, res.status, error_body(res.status, fmt::format("The request failed with HTTP status {}", res.status)));
    });
    http.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr error) {
        std::string message = "unknown error";
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            message = e.what();
        } catch (...) {
        }
        spdlog::error("{} {}: {}", req.method, req.path, message);
        send_json(res, 500, error_body(500, message));
    });
    http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
        spdlog::debug("{} {} {}", req.method, req.path, res.status);
    });

    http.Get("/health", [this](const httplib::Request&, httplib::Response& res) { health(res); });
    http.Get("/v1/health", [this](const httplib::Request&, httplib::Response& res) { health(res); });
    http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) { models(res); });
    http.Get("/models", [this](const httplib::Request&, httplib::Response& res) { models(res); });
    for (const char* path : {R"(/v1/models/(.+))", R"(/models/(.+))"}) {
        http.Get(path, [this](const httplib::Request& req, httplib::Response& res) { model(req, res); });
    }
    http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) { metrics(res); });
    for (const char* path : {"/v1/chat/completions", "/chat/completions"}) {
        http.Post(path, [this](const httplib::Request& req, httplib::Response& res) { complete(req, res, Endpoint::ChatCompletions); });
    }
    for (const char* path : {"/v1/completions", "/completions"}) {
        http.Post(path, [this](const httplib::Request& req, httplib::Response& res) { complete(req, res, Endpoint::Completions); });
    }
    add_responses_routes();
    add_anthropic_routes();
    add_embedding_routes();
    if (options_.webui) {
        http.Get("/", [](const httplib::Request&, httplib::Response& res) {
            res.set_content(std::string(chat_page()), "text/html; charset=utf-8");
        });
    }
    add_ollama_routes();
    add_utility_routes();
    add_lora_routes();
}

void Server::health(httplib::Response& res) const {
    if (!ready_.load()) return send_error(res, unavailable("Loading model"));
    send_json(res, 200, {{"status", "ok"}});
}

namespace {

std::string_view state_name(ModelState state) {
    switch (state) {
        case ModelState::Loaded: return "loaded";
        case ModelState::Loading: return "loading";
        case ModelState::Unloaded: return "unloaded";
    }
    return "unloaded";
}

// One model as OpenAI lists it, with llama-server's extras: `meta` while it is loaded, and
// its router's `status` ({"value": "loaded" | "loading" | "unloaded"}, "failed": true after
// a load that failed).
json model_entry(const ModelRegistry<LoadedModel>::Status& status, std::int64_t created) {
    json model = {{"id", status.source.id}, {"object", "model"}, {"created", created}, {"owned_by", "forge"}};
    if (status.model) {
        const LoadedModel& loaded = *status.model;
        model["meta"] = {{"n_ctx", loaded.n_ctx()}, {"n_vocab", loaded.tokenizer().n_vocab()}, {"architecture", loaded.architecture}};
        if (!loaded.is_chat()) model["meta"]["n_embd"] = loaded.embedder->n_embd();
    }
    model["status"] = {{"value", state_name(status.state)}};
    if (!status.failure.empty()) model["status"]["failed"] = true;
    return model;
}

}  // namespace

void Server::models(httplib::Response& res) const {
    json data = json::array();
    for (const auto& status : registry_.statuses()) data.push_back(model_entry(status, started_));
    send_json(res, 200, {{"object", "list"}, {"data", data}});
}

// GET /v1/models/{id}: as OpenAI answers it; with one model only its own names, as listed.
void Server::model(const httplib::Request& req, httplib::Response& res) const {
    const std::string name = req.matches[1];
    for (const auto& status : registry_.statuses()) {
        if (status.source.answers_to(name)) return send_json(res, 200, model_entry(status, started_));
    }
    send_error(res, model_not_found(name));
}

void Server::metrics(httplib::Response& res) const {
    if (!options_.metrics) {
        return send_json(res, 501, error_body(501, "This server does not serve /metrics: start it with --metrics"));
    }
    Load load;  // summed over the models loaded, and each of them
    for (const auto& loaded : registry_.loaded()) {
        ModelLoad& m = load.models.emplace_back(ModelLoad{loaded->name, {}});
        if (!loaded->is_chat()) continue;  // an embedding model's requests run on their HTTP thread
        m.load = {loaded->chat->scheduler.running(), loaded->chat->scheduler.queued(), options_.parallel};
        load.slots += m.load.slots;
        load.running += m.load.running;
        load.queued += m.load.queued;
    }
    res.set_content(metrics_.prometheus(load), "text/plain; version=0.0.4");
}

// The prompt's tokens: the conversation through the chat template, or the completion prompt
// as `forge chat --raw` tokenizes it (BOS where the file asks), or the ids as given. Text too
// long to fit a slot whatever its tokens is refused before it is tokenized (prompt_budget.h).
std::vector<std::int32_t> Server::prompt_tokens(const ChatModel& e, const CompletionRequest& request) const {
    if (request.endpoint == Endpoint::Completions && request.prompt_is_tokens) return request.prompt_tokens;
    std::string rendered;
    std::string_view text = request.prompt_text;
    if (request.endpoint == Endpoint::ChatCompletions) {
        try {
            rendered = e.format.render(request.messages, request.chat);
        } catch (const Error& error) {  // the template refused the conversation (raise_exception)
            throw invalid_request(fmt::format("The chat template cannot render these messages: {}", error.what()), "messages");
        }
        text = rendered;
    }
    check_prompt_bytes(text.size(), e.n_ctx, e.longest_token,
                       request.endpoint == Endpoint::Completions ? "prompt" : "messages");
    return e.format.raw(text);
}

// A non-streamed answer, unless the client leaves first: then the request is cancelled, as a
// stream's is, instead of holding its slot until max_tokens.
llm::RequestResult Server::wait_for_answer(llm::RequestHandle& handle) const {
    using namespace std::chrono_literals;
    const int socket = HttpServer::connection().socket;
    while (!handle.wait_for(10ms)) {
        if (peer_closed(socket)) handle.cancel();
    }
    return handle.wait();
}

void Server::complete(const httplib::Request& req, httplib::Response& res, Endpoint endpoint) {
    try {
        const nlohmann::ordered_json body = parse_body(req.body);
        const ModelLease lease = model_for(body);
        const ChatModel& e = lease->chat_model();
        CompletionRequest request = parse_request(endpoint, body, request_limits(e));
        const RunningRequest running = start(lease, request, "call_", endpoint == Endpoint::ChatCompletions);
        ResponseMeta meta = new_response_meta(endpoint, lease->name);
        if (request.stream)
            return stream_events(res, running, make_chunk_writer(std::move(meta), request.include_usage, request.logprobs, e.format.tokenizer()));
        const std::optional<llm::RequestResult> result = wait_for_result(running);
        if (!result) return;  // the client is gone, nobody to answer
        const RequestStream::Output logprobs = running.stream->take(std::chrono::milliseconds(0));
        llm::AnswerPiece parts = running.answer->whole(result->text);  // reasoning, content and calls apart
        Answer answer{std::move(parts.content), result->stats, logprobs.logprobs, request.logprobs, std::nullopt,
                      running.answer->calls(), std::move(parts.reasoning)};
        if (request.return_tokens) answer.tokens = std::span<const std::int32_t>(result->tokens);
        send_json(res, 200, full_response(meta, answer, e.format.tokenizer()));
    } catch (const ApiError& error) {
        metrics_.record_rejected();
        send_error(res, error);
    }
}

}  // namespace forge::app::serve
