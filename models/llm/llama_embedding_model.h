// The llama family (llama, qwen2, qwen3) as a text encoder: the transformer's forward pass
// without its head, its final-norm hidden states pooled as the file says ({arch}.pooling_type:
// Qwen3-Embedding pools the last token), or scored by a classifier head (cls.output.weight:
// Qwen3-Reranker). The math is models/llm/forward.h's, run through Forward::run_hidden.
//
// A file without {arch}.pooling_type pools nothing (Pooling::None), as llama.cpp decides: a
// chat model has no pooling of its own; EmbeddingOptions::pooling (--pooling) chooses one.
// Attention is causal, as llama.cpp runs these architectures for embeddings too.
#pragma once

#include "core/infer/linear.h"
#include "models/llm/embedding_model.h"
#include "models/llm/forward.h"
#include "models/llm/model.h"

#include <memory>
#include <string>

namespace forge::llm {

class LlamaEmbeddingModel : public EmbeddingModel {
public:
    // `model` may be shared with a chat server (serve runs both from one load). Throws
    // FormatError naming the file for a rank model without a usable cls.output.weight.
    LlamaEmbeddingModel(std::shared_ptr<const Model> model, const EmbeddingOptions& options);

    const Tokenizer& tokenizer() const override { return tokenizer_; }
    Pooling pooling() const override { return pooling_; }
    std::int64_t n_embd() const override;
    std::int64_t n_ctx() const override { return n_ctx_; }
    const gguf::GgufFile& file() const override { return model_->file(); }
    std::vector<float> embed(std::span<const std::int32_t> tokens) override;
    std::vector<std::int32_t> rerank_tokens(std::string_view query, std::string_view document) const override;

private:
    void check_tokens(std::span<const std::int32_t> tokens) const;
    // The row whose hidden state Cls, Last and Rank read.
    std::int64_t pooled_row(std::int64_t n_tokens) const;
    float rank_score(std::span<const float> hidden);

    std::shared_ptr<const Model> model_;
    Tokenizer tokenizer_;
    Pooling pooling_;
    std::int64_t n_ctx_;
    // Pooling::Rank: the classifier head [n_cls_out, n_embd] and its scratch.
    infer::Linear cls_out_;
    std::unique_ptr<infer::ActivationScratch> cls_scratch_;
    std::string rerank_template_;  // tokenizer.chat_template.rerank, "" when the file has none
};

// {arch}.pooling_type of a llama-family file; Pooling::None when the key is absent.
Pooling read_pooling(const gguf::GgufFile& file, const std::string& arch_name);

}  // namespace forge::llm
