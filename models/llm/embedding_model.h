// A text encoder: a model that turns one input's tokens into one vector (embeddings, for search
// and RAG) or a query-document pair into one relevance score (rerank). Two families implement
// it: the llama family read for its hidden states (Qwen3-Embedding, Qwen3-Reranker shapes) and
// the bert family (bert, nomic-bert: bge, all-MiniLM, nomic-embed). `forge embed` and serve's
// /v1/embeddings, /v1/rerank and /api/embed use only this interface.
//
// Pooling is the GGUF's `{arch}.pooling_type`, numbered as llama.cpp numbers it
// (enum llama_pooling_type), so a file means here what it means there.
#pragma once

#include "core/gguf/gguf_file.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

enum class Pooling : std::int32_t {
    None = 0,  // one vector per token
    Mean = 1,  // the average of the tokens' vectors
    Cls = 2,   // the first token's vector
    Last = 3,  // the last token's vector (decoder models: the only one that saw every token)
    Rank = 4,  // a classifier head over the pooled vector: one relevance score per input
};

class EmbeddingModel {
public:
    virtual ~EmbeddingModel() = default;

    virtual const Tokenizer& tokenizer() const = 0;
    virtual Pooling pooling() const = 0;
    virtual std::int64_t n_embd() const = 0;  // values in one vector
    virtual std::int64_t n_ctx() const = 0;   // the most tokens one input may have
    virtual const gguf::GgufFile& file() const = 0;  // the GGUF it was loaded from (its metadata)

    // One input's vector as the model's pooling makes it, not normalised ([n_embd];
    // Pooling::None: [n_tokens, n_embd]; Pooling::Rank: [1], the score before any sigmoid).
    // Throws forge::Error for no tokens, more than n_ctx() or an id out of range.
    virtual std::vector<float> embed(std::span<const std::int32_t> tokens) = 0;

    // Several inputs' vectors, each exactly as embed() gives it. By default one input at a
    // time; a model that runs several in one pass (the bert family) does so here.
    virtual std::vector<std::vector<float>> embed_batch(std::span<const std::vector<std::int32_t>> inputs);

    // The tokens of one query-document pair for a Pooling::Rank model, as llama-server makes
    // them: the file's rerank template (tokenizer.chat_template.rerank) with {query} and
    // {document} put in, or else [BOS] query [EOS] document [EOS] as the vocabulary adds them.
    virtual std::vector<std::int32_t> rerank_tokens(std::string_view query, std::string_view document) const;
};

// "none", "mean", "cls", "last", "rank" (llama.cpp's --pooling names); anything else throws
// naming the accepted ones.
Pooling pooling_from_name(std::string_view name);
std::string_view pooling_name(Pooling pooling);

struct EmbeddingOptions {
    std::optional<Pooling> pooling;  // instead of the file's {arch}.pooling_type
    std::int64_t n_ctx = 4096;       // the most tokens of one input (capped by the trained context)
};

// The text encoder in a GGUF file, by its general.architecture: llama, qwen2, qwen3 (their
// hidden states, models/llm/llama_embedding_model.h), bert and nomic-bert (models/bert/).
// Throws FormatError naming the file for an architecture that is no text encoder here.
std::unique_ptr<EmbeddingModel> load_embedding_model(const std::string& path, const EmbeddingOptions& options = {});
// The same, from a file already open.
std::unique_ptr<EmbeddingModel> load_embedding_model(gguf::GgufFile file, const EmbeddingOptions& options = {});

}  // namespace forge::llm
