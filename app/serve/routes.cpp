// The HTTP routes of `forge serve` (see server.h for the life of a request).
#include "app/serve/api_error.h"
#include "app/serve/chat_page.h"
#include "app/serve/http_reply.h"
#include "app/serve/http_server.h"
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

// Routes that answer without a key, as llama-server's do: the health check, the model list and
// the chat page (which asks for the key itself).
bool is_public(const std::string& path) {
    static const std::set<std::string> kPublic = {"/", "/health", "/v1/health", "/v1/models", "/models"};
    return kPublic.contains(path);
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
        if (!refusal) return httplib::Server::HandlerResponse::Unhandled;
        send_error(res, *refusal);
        return httplib::Server::HandlerResponse::Handled;
    });
    // Statuses httplib sets itself (404 no route, 413 body too large, 400 unreadable request)
    // get OpenAI's envelope too.
    http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        if (res.status == 404) return send_error(res, not_found(fmt::format("Unknown route: {} {}", req.method, req.path)));
        if (res.status == 413 && is_form(req)) return send_error(res, form_too_large());
        if (res.status == 413) return send_error(res, payload_too_large(options_.max_body));
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
    http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) { metrics(res); });
    for (const char* path : {"/v1/chat/completions", "/chat/completions"}) {
        http.Post(path, [this](const httplib::Request& req, httplib::Response& res) { complete(req, res, Endpoint::ChatCompletions); });
    }
    for (const char* path : {"/v1/completions", "/completions"}) {
        http.Post(path, [this](const httplib::Request& req, httplib::Response& res) { complete(req, res, Endpoint::Completions); });
    }
    add_embedding_routes();
    if (options_.webui) {
        http.Get("/", [](const httplib::Request&, httplib::Response& res) {
            res.set_content(std::string(chat_page()), "text/html; charset=utf-8");
        });
    }
}

void Server::health(httplib::Response& res) const {
    if (!ready_.load()) return send_error(res, unavailable("Loading model"));
    send_json(res, 200, {{"status", "ok"}});
}

void Server::models(httplib::Response& res) const {
    json model = {{"id", model_name_}, {"object", "model"}, {"created", started_}, {"owned_by", "forge"}};
    if (ready_.load()) {
        model["meta"] = {{"n_ctx", options_.ctx_size}, {"n_vocab", loaded_model_->model.hparams().n_vocab},
                         {"architecture", loaded_model_->model.hparams().arch_name}};
    }
    send_json(res, 200, {{"object", "list"}, {"data", json::array({model})}});
}

void Server::metrics(httplib::Response& res) const {
    if (!options_.metrics) {
        return send_json(res, 501, error_body(501, "This server does not serve /metrics: start it with --metrics"));
    }
    Load load;
    load.slots = options_.parallel;
    if (ready_.load()) {
        load.running = loaded_model_->scheduler.running();
        load.queued = loaded_model_->scheduler.queued();
    }
    res.set_content(metrics_.prometheus(load), "text/plain; version=0.0.4");
}

// The prompt's tokens: the conversation through the chat template, or the completion prompt
// as `forge chat --raw` tokenizes it (BOS where the file asks), or the ids as given. Text too
// long to fit a slot whatever its tokens is refused before it is tokenized (prompt_budget.h).
std::vector<std::int32_t> Server::prompt_tokens(const CompletionRequest& request) const {
    const LoadedModel& e = loaded_model();
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
    check_prompt_bytes(text.size(), options_.ctx_size, e.longest_token,
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
        LoadedModel& e = loaded_model();
        const RequestLimits limits{e.format.tokenizer().n_vocab(), options_.n_predict, e.tool_format, &grammars_};
        CompletionRequest request = parse_request(endpoint, parse_body(req.body), limits);
        if (request.grammar)
            request.generation.constraint = std::make_shared<llm::grammar::GrammarConstraint>(request.grammar, e.vocabulary);
        // Calls get ids "call_<random>_<index>", unique across requests.
        const auto tool_calls = request.parse_tool_calls
                                    ? std::make_shared<llm::tool_calls::ToolCallParser>(e.tool_format, random_id("call_", 16) + "_")
                                    : nullptr;
        std::vector<std::int32_t> prompt = prompt_tokens(request);
        const auto n_prompt = static_cast<std::int64_t>(prompt.size());
        if (n_prompt == 0) throw invalid_request("The prompt has no tokens", endpoint == Endpoint::Completions ? "prompt" : "messages");
        if (n_prompt >= options_.ctx_size) {
            throw invalid_request(fmt::format("This model's maximum context length is {} tokens. However, your {} resulted in {} "
                                              "tokens. Please reduce the length of the {}.",
                                              options_.ctx_size, endpoint == Endpoint::Completions ? "prompt" : "messages", n_prompt,
                                              endpoint == Endpoint::Completions ? "prompt" : "messages"),
                                  endpoint == Endpoint::Completions ? "prompt" : "messages", "context_length_exceeded");
        }
        auto stream = std::make_shared<RequestStream>();
        if (request.logprobs) request.generation.logprob_sink = [stream](const llm::TokenLogprob& t) { stream->push_logprob(t); };
        llm::Request job{std::move(prompt), request.generation, nullptr};
        if (request.stream) job.sink = [stream](std::string_view piece) { return stream->push_text(piece); };
        const std::shared_ptr<llm::RequestHandle> handle = submit(std::move(job));
        ResponseMeta meta = new_response_meta(endpoint, model_name_);
        if (request.stream) {
            auto context = std::make_shared<StreamContext>(StreamContext{std::move(meta), request.include_usage, request.logprobs,
                                                                         stream, handle, &e.format.tokenizer(), &metrics_, tool_calls});
            res.set_header("Cache-Control", "no-cache");
            res.set_chunked_content_provider("text/event-stream", [context](std::size_t, httplib::DataSink& sink) {
                write_stream(*context, [&](std::string_view bytes) { return sink.write(bytes.data(), bytes.size()); },
                             [&] { return sink.is_writable(); });
                sink.done();
                return true;
            },
            // Called however the response ends, also when httplib never got to the provider
            // (the client left during the headers): the request must not run on unread.
            [context](bool) {
                context->stream->client_gone();
                context->handle->cancel();
            });
            return;
        }
        const llm::RequestResult result = wait_for_answer(*handle);
        metrics_.record_finished(result.stats);
        if (handle->cancelled()) return;  // only wait_for_answer cancels: the client is gone, nobody to answer
        if (!result.error.empty()) throw invalid_request(result.error);
        if (result.stats.finish == llm::FinishReason::Cancelled) throw unavailable("The server is shutting down");
        const RequestStream::Output logprobs = stream->take(std::chrono::milliseconds(0));
        Answer answer{result.text, result.stats, logprobs.logprobs, request.logprobs, std::nullopt, {}};
        if (tool_calls) {  // split the text into content and calls
            answer.text = tool_calls->push(result.text).content;
            answer.text += tool_calls->finish().content;
            answer.tool_calls = tool_calls->calls();
        }
        if (request.return_tokens) answer.tokens = std::span<const std::int32_t>(result.tokens);
        send_json(res, 200, full_response(meta, answer, e.format.tokenizer()));
    } catch (const ApiError& error) {
        metrics_.record_rejected();
        send_error(res, error);
    }
}

}  // namespace forge::app::serve
