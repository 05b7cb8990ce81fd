// `forge serve`: the OpenAI-compatible HTTP server over the continuous-batching scheduler.
//
// Life of the process: listen first (GET /health answers 503 while the model loads), load the
// model, start the scheduler, answer requests until SIGINT/SIGTERM, then stop taking requests,
// end every running request (streams get an error event), and close. With many models
// (--models-dir, several -m) none is loaded at startup: /health is ok once listening, and each
// model loads on the first request that names it (model_registry.h).
//
// Every route that needs a model gets it with one call, model_for(name): the request's
// `model` (a body field, or ?model= on a GET), a lease that keeps the model loaded until it
// is dropped. A streamed response keeps its lease until the stream ends. With one model the
// name is not checked (as llama-server does); with many, an unknown one is 404 model_not_found.
// A model is a chat model or an embedding-only one (a bert file, loaded_model.h): the routes
// that generate text take the lease's chat_model(), a 400 naming the model for the latter.
//
// Life of a request (app/serve/routes.cpp): check the key, parse and check the body
// (openai_request.h), make the prompt's tokens and check they fit a slot, submit to the
// scheduler (503 + Retry-After when its queue is full), then either wait for the whole answer
// or stream chunks as the scheduler hands out text (request_stream.h).
#pragma once

#include "app/serve/cors.h"
#include "app/serve/grammar_cache.h"
#include "app/serve/loaded_model.h"
#include "app/serve/metrics.h"
#include "app/serve/model_registry.h"
#include "app/serve/options.h"
#include "app/serve/openai_request.h"
#include "app/serve/stream_writer.h"
#include "models/llm/scheduler.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace forge::app::serve {

class HttpServer;
enum class OllamaEndpoint;
struct OllamaModelFacts;
class ResponseStore;

// A request's hold on its model: the model stays loaded while a lease exists.
using ModelLease = std::shared_ptr<LoadedModel>;

class Server {
public:
    explicit Server(ServeOptions options);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Listen, load, serve until SIGINT or SIGTERM. Returns the exit code.
    int run();

private:
    void add_routes();
    void health(httplib::Response& res) const;
    void models(httplib::Response& res) const;
    void model(const httplib::Request& req, httplib::Response& res) const;
    void metrics(httplib::Response& res) const;
    // llama-server's utility routes (utility_routes.cpp).
    void add_utility_routes();
    void add_lora_routes();  // GET and POST /lora-adapters (lora_routes.cpp)
    void tokenize(const httplib::Request& req, httplib::Response& res);
    void detokenize(const httplib::Request& req, httplib::Response& res);
    void apply_template(const httplib::Request& req, httplib::Response& res);
    void props(const httplib::Request& req, httplib::Response& res);
    void slots(const httplib::Request& req, httplib::Response& res);
    void complete(const httplib::Request& req, httplib::Response& res, Endpoint endpoint);
    // Embeddings and rerank (embedding_routes.cpp).
    void add_embedding_routes();
    void embeddings(const httplib::Request& req, httplib::Response& res);
    void rerank(const httplib::Request& req, httplib::Response& res);
    void ollama_embed(const httplib::Request& req, httplib::Response& res);
    void ollama_embeddings(const httplib::Request& req, httplib::Response& res);
    std::vector<std::vector<float>> run_encoder(LoadedModel& e, const std::vector<std::vector<std::int32_t>>& inputs);
    bool authorized(const httplib::Request& req) const;
    // Before a body is read: only /health for a connection over the limit, the key, the body's
    // bytes in the budget. Returns the refusal to send, if any.
    std::optional<ApiError> admit(const httplib::Request& req) const;

    // The model a request names (its `model`; with one model, that one whatever the name),
    // loaded if it is not. Throws ApiError: 404 model_not_found, 400 when several are served
    // and none is named, 503 while the server starts or stops or no model can make room.
    ModelLease model_for(const std::string& requested);
    ModelLease model_for(const nlohmann::ordered_json& body);  // its "model" field (400 if not a string)
    ModelLease load(const ModelSource& source) const;  // the registry's loader
    std::vector<std::int32_t> prompt_tokens(const ChatModel& e, const CompletionRequest& request) const;
    // Ollama's API (app/serve/ollama_api.cpp).
    void add_ollama_routes();
    void ollama_answer(const httplib::Request& req, httplib::Response& res, OllamaEndpoint endpoint);
    void ollama_list(const httplib::Request& req, httplib::Response& res, bool running) const;
    void ollama_describe(const httplib::Request& req, httplib::Response& res);
    ModelLease ollama_model(const std::string& name);  // throws ApiError 404 for a name not served, as Ollama does
    llm::RequestResult wait_for_answer(llm::RequestHandle& handle) const;
    std::shared_ptr<llm::RequestHandle> submit(ChatModel& chat, llm::Request request);

    // What every API's handler shares once its body is a CompletionRequest (run_request.cpp):
    // the parse's limits; the grammar, tool-call parser, prompt checks and submit; the whole
    // answer, its metrics and errors (nullopt: the client left); or the answer streamed as
    // `events` say.
    RequestLimits request_limits(const ChatModel& chat);
    // The request holds `model` (its lease) until it ends, a stream's too. Throws ApiError 400
    // for an embedding-only model. `reasoning_apart`: the API returns a thinking model's
    // reasoning apart from the answer (with --reasoning-format auto).
    RunningRequest start(const ModelLease& model, CompletionRequest& request, std::string_view call_id_prefix,
                         bool reasoning_apart = false);
    std::optional<llm::RequestResult> wait_for_result(const RunningRequest& running);
    void stream_events(httplib::Response& res, const RunningRequest& running, std::shared_ptr<StreamEvents> events);
    // Stream the answer through `events`, or wait for it and replay it through them (their
    // writer then holds the whole answer: true, send it; false: streamed, or the client left).
    bool answered_whole(httplib::Response& res, const RunningRequest& running, bool stream, const std::shared_ptr<StreamEvents>& events);

    // OpenAI's Responses API (responses_api.cpp) and Anthropic's Messages API (anthropic_api.cpp).
    void add_responses_routes();
    void create_response(const httplib::Request& req, httplib::Response& res);
    void add_anthropic_routes();
    void create_message(const httplib::Request& req, httplib::Response& res);
    void count_message_tokens(const httplib::Request& req, httplib::Response& res);
    void shutdown();

    ServeOptions options_;
    std::int64_t started_ = 0;  // Unix seconds, for /v1/models
    std::unique_ptr<HttpServer> http_;
    ModelRegistry<LoadedModel> registry_;
    CorsPolicy cors_;
    std::atomic<bool> ready_{false};
    std::mutex submit_mutex_;  // a submit and the shutdown's stop never interleave
    bool stopping_ = false;
    Metrics metrics_;
    GrammarCache grammars_;
    std::unique_ptr<ResponseStore> responses_;  // stored Responses, for previous_response_id
};

}  // namespace forge::app::serve
