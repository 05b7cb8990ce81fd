// The bodies of serve's embedding and rerank routes, parsed and checked (app/serve/embedding_routes.cpp):
//   /v1/embeddings (OpenAI): input as a string, strings, token ids or arrays of ids;
//       encoding_format float | base64; dimensions (the first n values, normalised again).
//   /v1/rerank (llama-server, Jina, Cohere): query, documents, top_n, return_documents.
//   /api/embed (Ollama): input as a string or strings, truncate.
//   /api/embeddings (Ollama's older route): one string, prompt.
// Each text becomes its tokens here, so every check (empty, too long, an id out of range)
// names the field: "input[2]", "documents[0]". Errors are ApiError 400s.
#pragma once

#include "models/llm/embedding_model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace forge::app::serve {

// One input as the model will see it: its tokens, and the field it came from.
struct EmbeddingInput {
    std::vector<std::int32_t> tokens;
    std::string field;  // "input", "input[3]"
};

struct EmbeddingRequest {
    std::vector<EmbeddingInput> inputs;
    bool base64 = false;                     // encoding_format "base64"
    std::optional<std::int64_t> dimensions;  // keep the first n values
};

struct RerankRequest {
    std::string query;
    std::vector<std::string> documents;
    std::vector<std::vector<std::int32_t>> pairs;  // each document's tokens with the query
    std::optional<std::size_t> top_n;
    bool return_documents = false;
};

struct OllamaEmbedRequest {
    std::vector<EmbeddingInput> inputs;
    std::optional<std::int64_t> dimensions;
};

EmbeddingRequest parse_embedding_request(const nlohmann::ordered_json& body, const llm::EmbeddingModel& model);
RerankRequest parse_rerank_request(const nlohmann::ordered_json& body, const llm::EmbeddingModel& model);
// truncate (default true, as Ollama): an input longer than the context keeps its first tokens.
OllamaEmbedRequest parse_ollama_embed_request(const nlohmann::ordered_json& body, const llm::EmbeddingModel& model);

// /api/embeddings: the prompt's tokens, cut to the model's context as Ollama cuts them; none
// for an empty or absent prompt, which Ollama answers with an empty vector (the request only
// loads the model).
std::optional<EmbeddingInput> parse_ollama_embeddings_request(const nlohmann::ordered_json& body, const llm::EmbeddingModel& model);

// An embedding as a client asked for it: the first `dimensions` values, L2-normalised.
std::vector<float> client_vector(std::vector<float> pooled, std::optional<std::int64_t> dimensions);
// Little-endian float32 bytes in base64, as OpenAI's encoding_format "base64" sends them.
std::string base64_floats(const std::vector<float>& values);

}  // namespace forge::app::serve
