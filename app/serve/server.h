// `forge serve`: the OpenAI-compatible HTTP server over the continuous-batching scheduler.
//
// Life of the process: listen first (GET /health answers 503 while the model loads), load the
// model, start the scheduler, answer requests until SIGINT/SIGTERM, then stop taking requests,
// end every running request (streams get an error event), and close.
//
// Life of a request (app/serve/routes.cpp): check the key, parse and check the body
// (openai_request.h), make the prompt's tokens and check they fit a slot, submit to the
// scheduler (503 + Retry-After when its queue is full), then either wait for the whole answer
// or stream chunks as the scheduler hands out text (request_stream.h).
#pragma once

#include "app/serve/grammar_cache.h"
#include "app/serve/metrics.h"
#include "app/serve/options.h"
#include "app/serve/openai_request.h"
#include "models/llm/sequence_generator.h"
#include "models/llm/grammar/vocabulary_index.h"
#include "models/llm/tool_calls/tool_format.h"
#include "models/llm/embedding_model.h"
#include "models/llm/model.h"
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

// What exists once the model is loaded: the model, its prompt format and scheduler, and what
// structured output and tool calls need from it.
struct LoadedModel {
    explicit LoadedModel(const ServeOptions& options);
    llm::Model model;
    llm::PromptFormat format;
    llm::Scheduler scheduler;
    // Structured output: the vocabulary as the grammar engine walks it (built once, shared by
    // every constrained request), and how this model writes tool calls (from its template).
    std::shared_ptr<const llm::grammar::VocabularyIndex> vocabulary;
    llm::tool_calls::ToolFormat tool_format;
    std::size_t longest_token;  // bytes of the longest vocabulary entry (prompt_budget.h)
    // The same model as a text encoder, for the embedding and rerank routes
    // (embedding_routes.cpp); its pooling is the file's, or --pooling. One request at a time.
    std::unique_ptr<llm::EmbeddingModel> embedder;
    std::mutex embedding_mutex;
};

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
    void metrics(httplib::Response& res) const;
    void complete(const httplib::Request& req, httplib::Response& res, Endpoint endpoint);
    // Embeddings and rerank (embedding_routes.cpp).
    void add_embedding_routes();
    void embeddings(const httplib::Request& req, httplib::Response& res);
    void rerank(const httplib::Request& req, httplib::Response& res);
    void ollama_embed(const httplib::Request& req, httplib::Response& res);
    std::vector<std::vector<float>> run_encoder(LoadedModel& e, const std::vector<std::vector<std::int32_t>>& inputs);
    bool authorized(const httplib::Request& req) const;
    // Before a body is read: only /health for a connection over the limit, the key, the body's
    // bytes in the budget. Returns the refusal to send, if any.
    std::optional<ApiError> admit(const httplib::Request& req) const;

    LoadedModel& loaded_model() const;  // throws ApiError 503 while loading or stopping
    std::vector<std::int32_t> prompt_tokens(const CompletionRequest& request) const;
    llm::RequestResult wait_for_answer(llm::RequestHandle& handle) const;
    std::shared_ptr<llm::RequestHandle> submit(llm::Request request);
    void shutdown();

    ServeOptions options_;
    std::string model_name_;
    std::int64_t started_ = 0;  // Unix seconds, for /v1/models
    std::unique_ptr<HttpServer> http_;
    std::unique_ptr<LoadedModel> loaded_model_;
    std::atomic<bool> ready_{false};
    std::mutex submit_mutex_;  // a submit and the shutdown's stop never interleave
    bool stopping_ = false;
    Metrics metrics_;
    GrammarCache grammars_;
};

}  // namespace forge::app::serve
