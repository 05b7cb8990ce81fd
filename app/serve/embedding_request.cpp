#include "app/serve/embedding_request.h"

#include "app/serve/api_error.h"
#include "models/llm/embedding_math.h"

#include <fmt/format.h>

#include <array>
#include <cstring>

namespace forge::app::serve {

namespace {

using nlohmann::ordered_json;

// OpenAI's limit on the inputs of one request (and a bound on the work one request asks for).
constexpr std::size_t kMaxInputs = 2048;

std::string item_field(const std::string& field, std::size_t i) { return fmt::format("{}[{}]", field, i); }

void check_length(const EmbeddingInput& input, const llm::EmbeddingModel& model) {
    if (input.tokens.empty()) throw invalid_request(fmt::format("{} is empty: it has no tokens to embed", input.field), input.field);
    const auto n = static_cast<std::int64_t>(input.tokens.size());
    if (n > model.n_ctx()) {
        throw invalid_request(fmt::format("{} has {} tokens, more than this model's context of {} tokens; shorten it",
                                          input.field, n, model.n_ctx()),
                              input.field, "context_length_exceeded");
    }
}

// Ollama keeps an input's first tokens when it is longer than the model's context.
void cut_to_context(EmbeddingInput& input, const llm::EmbeddingModel& model) {
    if (static_cast<std::int64_t>(input.tokens.size()) > model.n_ctx()) input.tokens.resize(static_cast<std::size_t>(model.n_ctx()));
}

EmbeddingInput text_input(const ordered_json& value, const std::string& field, const llm::EmbeddingModel& model) {
    return {model.tokenizer().encode(value.get<std::string>(), /*add_special=*/true, /*parse_special=*/true), field};
}

EmbeddingInput token_input(const ordered_json& value, const std::string& field, const llm::EmbeddingModel& model) {
    EmbeddingInput input{{}, field};
    const std::int32_t n_vocab = model.tokenizer().n_vocab();
    for (std::size_t j = 0; j < value.size(); ++j) {
        const ordered_json& id = value[j];
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= n_vocab) {
            throw invalid_request(fmt::format("{} must be a token id in [0, {}), not {}", item_field(field, j), n_vocab, id.dump()),
                                  item_field(field, j));
        }
        input.tokens.push_back(static_cast<std::int32_t>(id.get<std::int64_t>()));
    }
    return input;
}

// The input field: a string, an array of strings, an array of ids (one input) or an array
// of arrays of ids. `allow_tokens`: Ollama takes text only.
std::vector<EmbeddingInput> parse_inputs(const ordered_json& body, const std::string& field, bool allow_tokens,
                                         const llm::EmbeddingModel& model) {
    if (!body.contains(field)) throw invalid_request(fmt::format("'{}' is required", field), field);
    const ordered_json& input = body.at(field);
    const std::string kinds = allow_tokens ? "a string, an array of strings, an array of token ids or an array of such arrays"
                                           : "a string or an array of strings";
    if (input.is_string()) return {text_input(input, field, model)};
    if (!input.is_array()) throw invalid_request(fmt::format("'{}' must be {}", field, kinds), field);
    if (input.empty()) throw invalid_request(fmt::format("'{}' is an empty array: give at least one input", field), field);
    if (input.size() > kMaxInputs) {
        throw invalid_request(fmt::format("'{}' has {} inputs, more than the {} one request may have", field, input.size(), kMaxInputs),
                              field);
    }
    if (allow_tokens && input.front().is_number()) return {token_input(input, field, model)};
    std::vector<EmbeddingInput> inputs;
    for (std::size_t i = 0; i < input.size(); ++i) {
        const ordered_json& item = input[i];
        if (item.is_string()) {
            inputs.push_back(text_input(item, item_field(field, i), model));
        } else if (allow_tokens && item.is_array()) {
            inputs.push_back(token_input(item, item_field(field, i), model));
        } else {
            throw invalid_request(fmt::format("{} must be {}", item_field(field, i), allow_tokens ? "a string or an array of token ids" : "a string"),
                                  item_field(field, i));
        }
    }
    return inputs;
}

std::optional<std::int64_t> parse_dimensions(const ordered_json& body, const llm::EmbeddingModel& model) {
    if (!body.contains("dimensions") || body.at("dimensions").is_null()) return std::nullopt;
    const ordered_json& d = body.at("dimensions");
    if (!d.is_number_integer() || d.get<std::int64_t>() < 1 || d.get<std::int64_t>() > model.n_embd()) {
        throw invalid_request(fmt::format("'dimensions' must be an integer in [1, {}] (this model's vectors have {} values)",
                                          model.n_embd(), model.n_embd()),
                              "dimensions");
    }
    return d.get<std::int64_t>();
}

// Embedding routes need a model that pools into one vector.
void require_vectors(const llm::EmbeddingModel& model) {
    if (model.pooling() == llm::Pooling::Rank) {
        throw invalid_request("This model is a reranker (pooling rank): it scores query-document pairs at /v1/rerank, it has no "
                              "embeddings", "model");
    }
    if (model.pooling() == llm::Pooling::None) {
        throw invalid_request("This model pools no vector (pooling none: the GGUF has no pooling_type, as a chat model has): "
                              "serve an embedding model, or start the server with --pooling mean|cls|last",
                              "model");
    }
}

bool optional_bool(const ordered_json& body, const char* key, bool fallback) {
    if (!body.contains(key) || body.at(key).is_null()) return fallback;
    if (!body.at(key).is_boolean()) throw invalid_request(fmt::format("'{}' must be true or false", key), key);
    return body.at(key).get<bool>();
}

}  // namespace

EmbeddingRequest parse_embedding_request(const ordered_json& body, const llm::EmbeddingModel& model) {
    require_vectors(model);
    EmbeddingRequest r;
    r.inputs = parse_inputs(body, "input", true, model);
    for (const EmbeddingInput& input : r.inputs) check_length(input, model);
    if (body.contains("encoding_format") && !body.at("encoding_format").is_null()) {
        const ordered_json& format = body.at("encoding_format");
        if (format != "float" && format != "base64") {
            throw invalid_request(fmt::format("'encoding_format' must be \"float\" or \"base64\", not {}", format.dump()),
                                  "encoding_format");
        }
        r.base64 = format == "base64";
    }
    r.dimensions = parse_dimensions(body, model);
    return r;
}

RerankRequest parse_rerank_request(const ordered_json& body, const llm::EmbeddingModel& model) {
    if (model.pooling() != llm::Pooling::Rank) {
        throw invalid_request(fmt::format("This model is not a reranker (it pools {}; a reranker's GGUF has pooling_type rank, "
                                          "as Qwen3-Reranker's has)", llm::pooling_name(model.pooling())),
                              "model");
    }
    RerankRequest r;
    if (!body.contains("query") || !body.at("query").is_string() || body.at("query").get<std::string>().empty()) {
        throw invalid_request("'query' is required: a non-empty string", "query");
    }
    r.query = body.at("query").get<std::string>();
    // llama-server also takes "texts" for the documents (TEI's name).
    const char* field = body.contains("documents") ? "documents" : "texts";
    if (!body.contains(field) || !body.at(field).is_array() || body.at(field).empty()) {
        throw invalid_request("'documents' is required: a non-empty array of strings", "documents");
    }
    const ordered_json& documents = body.at(field);
    if (documents.size() > kMaxInputs) {
        throw invalid_request(fmt::format("'documents' has {} items, more than the {} one request may have", documents.size(), kMaxInputs),
                              "documents");
    }
    for (std::size_t i = 0; i < documents.size(); ++i) {
        const ordered_json& d = documents[i];
        // Jina and Cohere also take {"text": ...} objects.
        const ordered_json* text = d.is_object() && d.contains("text") ? &d.at("text") : &d;
        if (!text->is_string()) throw invalid_request(fmt::format("documents[{}] must be a string", i), item_field("documents", i));
        r.documents.push_back(text->get<std::string>());
        EmbeddingInput pair{model.rerank_tokens(r.query, r.documents.back()), item_field("documents", i)};
        check_length(pair, model);
        r.pairs.push_back(std::move(pair.tokens));
    }
    if (body.contains("top_n") && !body.at("top_n").is_null()) {
        const ordered_json& top_n = body.at("top_n");
        if (!top_n.is_number_integer() || top_n.get<std::int64_t>() < 1) {
            throw invalid_request("'top_n' must be a positive integer", "top_n");
        }
        r.top_n = static_cast<std::size_t>(top_n.get<std::int64_t>());
    }
    r.return_documents = optional_bool(body, "return_documents", false);
    return r;
}

OllamaEmbedRequest parse_ollama_embed_request(const ordered_json& body, const llm::EmbeddingModel& model) {
    require_vectors(model);
    OllamaEmbedRequest r;
    r.inputs = parse_inputs(body, "input", false, model);
    const bool truncate = optional_bool(body, "truncate", true);
    for (EmbeddingInput& input : r.inputs) {
        if (truncate) cut_to_context(input, model);
        check_length(input, model);
    }
    r.dimensions = parse_dimensions(body, model);
    return r;
}

std::optional<EmbeddingInput> parse_ollama_embeddings_request(const ordered_json& body, const llm::EmbeddingModel& model) {
    require_vectors(model);
    const auto prompt = body.find("prompt");
    if (prompt == body.end() || prompt->is_null()) return std::nullopt;
    if (!prompt->is_string()) throw invalid_request("'prompt' must be a string: the text to embed", "prompt");
    if (prompt->get<std::string>().empty()) return std::nullopt;
    EmbeddingInput input = text_input(*prompt, "prompt", model);
    cut_to_context(input, model);
    check_length(input, model);
    return input;
}

std::vector<float> client_vector(std::vector<float> pooled, std::optional<std::int64_t> dimensions) {
    if (dimensions) pooled.resize(static_cast<std::size_t>(*dimensions));
    llm::normalize_l2(pooled);
    return pooled;
}

std::string base64_floats(const std::vector<float>& values) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::vector<unsigned char> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());  // little-endian hosts only (x86-64, arm64)
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
        const std::uint32_t chunk = (std::uint32_t{bytes[i]} << 16) | (n > 1 ? std::uint32_t{bytes[i + 1]} << 8 : 0) |
                                    (n > 2 ? std::uint32_t{bytes[i + 2]} : 0);
        for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(chunk >> (18 - 6 * k)) & 63] : '=';
    }
    return out;
}

}  // namespace forge::app::serve
