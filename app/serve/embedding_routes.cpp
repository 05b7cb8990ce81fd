// serve's embedding and rerank routes (bodies: embedding_request.h):
//   POST /v1/embeddings, /embeddings          OpenAI's embeddings
//   POST /v1/rerank, /rerank, /v1/reranking, /reranking   llama-server's (Jina's, Cohere's) rerank
//   POST /api/embed                           Ollama's embed
//   POST /api/embeddings                      Ollama's older embeddings: one prompt, the raw vector
// They run the loaded model's text encoder (llm::EmbeddingModel) on the HTTP thread, one
// request at a time (LoadedModel::embedding_mutex: the encoder's buffers are its own). The
// scheduler's thread runs generation on the same thread pool meanwhile; the pool takes one
// job at a time from outside threads (core/thread_pool.h), so the two interleave op by op.
#include "app/serve/api_error.h"
#include "app/serve/embedding_request.h"
#include "app/serve/http_server.h"
#include "app/serve/json_reply.h"
#include "app/serve/ollama_request.h"
#include "app/serve/openai_response.h"
#include "app/serve/server.h"
#include "models/llm/embedding_math.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <numeric>

namespace forge::app::serve {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::size_t count_tokens(const std::vector<EmbeddingInput>& inputs) {
    return std::accumulate(inputs.begin(), inputs.end(), std::size_t{0},
                           [](std::size_t n, const EmbeddingInput& input) { return n + input.tokens.size(); });
}

std::int64_t nanoseconds_since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

}  // namespace

void Server::add_embedding_routes() {
    HttpServer& http = *http_;
    for (const char* path : {"/v1/embeddings", "/embeddings"}) {
        http.Post(path, [this](const httplib::Request& req, httplib::Response& res) { embeddings(req, res); });
    }
    for (const char* path : {"/v1/rerank", "/rerank", "/v1/reranking", "/reranking"}) {
        http.Post(path, [this](const httplib::Request& req, httplib::Response& res) { rerank(req, res); });
    }
    http.Post("/api/embed", [this](const httplib::Request& req, httplib::Response& res) { ollama_embed(req, res); });
    http.Post("/api/embeddings", [this](const httplib::Request& req, httplib::Response& res) { ollama_embeddings(req, res); });
}

std::vector<std::vector<float>> Server::run_encoder(LoadedModel& e, const std::vector<std::vector<std::int32_t>>& inputs) {
    std::lock_guard lock(e.embedding_mutex);
    return e.embedder->embed_batch(inputs);  // a bert model runs them in passes of many inputs
}

void Server::embeddings(const httplib::Request& req, httplib::Response& res) {
    try {
        const nlohmann::ordered_json body = parse_body(req.body);
        const ModelLease lease = model_for(body);
        LoadedModel& e = *lease;
        const EmbeddingRequest request = parse_embedding_request(body, *e.embedder);
        std::vector<std::vector<std::int32_t>> tokens;
        for (const EmbeddingInput& input : request.inputs) tokens.push_back(input.tokens);
        const std::vector<std::vector<float>> pooled = run_encoder(e, tokens);
        json data = json::array();
        for (std::size_t i = 0; i < pooled.size(); ++i) {
            const std::vector<float> v = client_vector(pooled[i], request.dimensions);
            data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", request.base64 ? json(base64_floats(v)) : json(v)}});
        }
        const std::size_t n_tokens = count_tokens(request.inputs);
        send_json(res, 200, {{"object", "list"}, {"data", std::move(data)}, {"model", e.name},
                             {"usage", {{"prompt_tokens", n_tokens}, {"total_tokens", n_tokens}}}});
    } catch (const ApiError& error) {
        send_error(res, error);
    }
}

void Server::rerank(const httplib::Request& req, httplib::Response& res) {
    try {
        const nlohmann::ordered_json body = parse_body(req.body);
        const ModelLease lease = model_for(body);
        LoadedModel& e = *lease;
        const RerankRequest request = parse_rerank_request(body, *e.embedder);
        const std::vector<std::vector<float>> logits = run_encoder(e, request.pairs);
        std::vector<std::size_t> order(logits.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        // Highest score first; equal scores keep the documents' order.
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return logits[a][0] > logits[b][0]; });
        if (request.top_n && *request.top_n < order.size()) order.resize(*request.top_n);
        json results = json::array();
        for (const std::size_t i : order) {
            json result = {{"index", i}, {"relevance_score", llm::relevance_score(logits[i][0])}};
            if (request.return_documents) result["document"] = {{"text", request.documents[i]}};
            results.push_back(std::move(result));
        }
        std::size_t n_tokens = 0;
        for (const auto& pair : request.pairs) n_tokens += pair.size();
        send_json(res, 200, {{"object", "list"}, {"model", e.name}, {"results", std::move(results)},
                             {"usage", {{"prompt_tokens", n_tokens}, {"total_tokens", n_tokens}}}});
    } catch (const ApiError& error) {
        send_error(res, error);
    }
}

// Ollama's errors are {"error": "message"} (json_reply.h picks the envelope by route).
void Server::ollama_embed(const httplib::Request& req, httplib::Response& res) {
    const auto start = Clock::now();
    try {
        const nlohmann::ordered_json body = parse_body(req.body);
        const ModelLease lease = ollama_model(ollama_model_name(body));
        LoadedModel& e = *lease;
        const OllamaEmbedRequest request = parse_ollama_embed_request(body, *e.embedder);
        std::vector<std::vector<std::int32_t>> tokens;
        for (const EmbeddingInput& input : request.inputs) tokens.push_back(input.tokens);
        json embeddings = json::array();
        for (std::vector<float>& v : run_encoder(e, tokens)) embeddings.push_back(client_vector(std::move(v), request.dimensions));
        send_json(res, 200, {{"model", e.name}, {"embeddings", std::move(embeddings)}, {"total_duration", nanoseconds_since(start)},
                             {"load_duration", 0}, {"prompt_eval_count", count_tokens(request.inputs)}});
    } catch (const ApiError& error) {
        send_error(res, error, req.path);
    }
}

// Ollama's older route, which its clients still call (ollama.embeddings): one text, and the
// model's vector as it pools it, not normalised (Ollama normalises only /api/embed's).
void Server::ollama_embeddings(const httplib::Request& req, httplib::Response& res) {
    try {
        const nlohmann::ordered_json body = parse_body(req.body);
        const ModelLease lease = ollama_model(ollama_model_name(body));
        LoadedModel& e = *lease;
        const std::optional<EmbeddingInput> input = parse_ollama_embeddings_request(body, *e.embedder);
        std::vector<float> embedding;
        if (input) embedding = std::move(run_encoder(e, {input->tokens}).front());
        send_json(res, 200, {{"embedding", std::move(embedding)}});
    } catch (const ApiError& error) {
        send_error(res, error, req.path);
    }
}

}  // namespace forge::app::serve
