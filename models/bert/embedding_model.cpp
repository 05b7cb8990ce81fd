#include "models/bert/embedding_model.h"

#include "core/checked_math.h"
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/infer/activation.h"
#include "core/infer/linear.h"
#include "core/infer/row_ops.h"
#include "models/bert/encoder.h"
#include "models/bert/hparams.h"
#include "models/bert/weights.h"

#include <algorithm>

namespace forge::bert {

namespace {

class BertEmbeddingModel final : public llm::EmbeddingModel {
public:
    explicit BertEmbeddingModel(gguf::GgufFile file)
        : file_(std::move(file)),
          hparams_(read_hparams(file_)),
          tokenizer_(llm::Tokenizer::from_gguf(file_)),
          weights_(load_weights(file_, hparams_)),
          encoder_(hparams_, weights_) {
        check_format(tokenizer_.n_vocab() == hparams_.n_vocab, "{}: {} tokens for a {}-row token_embd",
                     file_.source(), tokenizer_.n_vocab(), hparams_.n_vocab);
    }

    const llm::Tokenizer& tokenizer() const override { return tokenizer_; }
    llm::Pooling pooling() const override { return hparams_.pooling; }
    std::int64_t n_embd() const override { return hparams_.n_embd; }
    std::int64_t n_ctx() const override { return hparams_.n_ctx; }
    const gguf::GgufFile& file() const override { return file_; }
    // A cross-encoder reads "[CLS] query [SEP] document [SEP]" (pair_tokens), as bge-reranker was trained.
    std::vector<std::int32_t> rerank_tokens(std::string_view query, std::string_view document) const override {
        return pair_tokens(tokenizer_, query, document);
    }

    std::vector<float> embed(std::span<const std::int32_t> tokens) override {
        check_input(tokens);
        const std::vector<float> hidden = encoder_.forward(tokens);
        return pool(hidden, static_cast<std::int64_t>(tokens.size()));
    }

    // The inputs in passes of up to kPassTokens tokens (at least one input each): one pass
    // reads the weights once for all its inputs. Each vector is embed()'s, bit for bit
    // (Encoder::forward over several inputs).
    std::vector<std::vector<float>> embed_batch(std::span<const std::vector<std::int32_t>> inputs) override {
        for (const auto& tokens : inputs) check_input(tokens);
        std::vector<std::vector<float>> out;
        out.reserve(inputs.size());
        for (std::size_t first = 0; first < inputs.size();) {
            std::vector<std::int32_t> tokens;
            std::vector<std::int64_t> lengths;
            std::size_t end = first;
            while (end < inputs.size() && (end == first || tokens.size() + inputs[end].size() <= kPassTokens)) {
                tokens.insert(tokens.end(), inputs[end].begin(), inputs[end].end());
                lengths.push_back(static_cast<std::int64_t>(inputs[end].size()));
                ++end;
            }
            const std::vector<float> hidden = encoder_.forward(tokens, lengths);
            std::size_t row = 0;
            for (const std::int64_t length : lengths) {
                const auto e = sz(hparams_.n_embd);
                out.push_back(pool(std::span(hidden).subspan(row * e, sz(length) * e), length));
                row += sz(length);
            }
            first = end;
        }
        return out;
    }

private:
    // Bounds one pass's activations (a few MiB for a bge-small shape; n_ff floats a token).
    static constexpr std::size_t kPassTokens = 2048;

    void check_input(std::span<const std::int32_t> tokens) const {
        check(!tokens.empty(), "embed: no tokens");
        check(static_cast<std::int64_t>(tokens.size()) <= hparams_.n_ctx, "embed: {} tokens, more than the model's "
              "context of {}", tokens.size(), hparams_.n_ctx);
        for (const std::int32_t id : tokens) {
            check(id >= 0 && id < hparams_.n_vocab, "embed: token id {} is out of range (vocabulary has {} tokens)", id,
                  hparams_.n_vocab);
        }
    }

    // llama.cpp's build_pooling over one input's rows `hidden` [n, n_embd]: the mean of every
    // token's vector, the first ([CLS]) token's, or that one through the classifier head.
    std::vector<float> pool(std::span<const float> hidden, std::int64_t n) const {
        const auto e = sz(hparams_.n_embd);
        switch (hparams_.pooling) {
            case llm::Pooling::None: return {hidden.begin(), hidden.end()};
            case llm::Pooling::Mean: {
                std::vector<float> mean(e, 0.0f);
                for (std::int64_t i = 0; i < n; ++i) infer::add_rows(mean, hidden.subspan(sz(i) * e, e));
                const float inverse = 1.0f / static_cast<float>(n);
                infer::multiply_rows(mean, std::span(&inverse, 1), mean);
                return mean;
            }
            case llm::Pooling::Cls:
            case llm::Pooling::Last:  // refused by read_hparams
                return {hidden.begin(), hidden.begin() + static_cast<std::ptrdiff_t>(e)};
            case llm::Pooling::Rank: return rank_score(hidden.first(e));
        }
        return {hidden.begin(), hidden.end()};
    }

    // score = cls.output · tanh(cls · h_cls + b) + b_out (the head of a cross-encoder).
    std::vector<float> rank_score(std::span<const float> cls_row) const {
        infer::ActivationScratch scratch(1, hparams_.n_embd);
        std::vector<float> pooled(cls_row.begin(), cls_row.end());
        if (weights_.cls.weight.defined()) {
            std::vector<float> projected(pooled.size());
            infer::linear(weights_.cls, pooled, 1, projected, scratch);
            infer::activate(infer::UnaryOp::Tanh, {}, projected);
            pooled.swap(projected);
        }
        std::vector<float> score(1);
        infer::linear(weights_.cls_output, pooled, 1, score, scratch);
        return score;
    }

    gguf::GgufFile file_;
    Hparams hparams_;
    llm::Tokenizer tokenizer_;
    Weights weights_;
    Encoder encoder_;
};

}  // namespace

std::vector<std::int32_t> pair_tokens(const llm::Tokenizer& tokenizer, std::string_view query,
                                      std::string_view document) {
    const std::int32_t sep = tokenizer.vocab().special().sep;
    check(sep >= 0, "rerank: the vocabulary has no [SEP] token to join a query and a document");
    std::vector<std::int32_t> ids = tokenizer.encode(query, /*add_special=*/true, /*parse_special=*/false);
    const std::vector<std::int32_t> doc = tokenizer.encode(document, /*add_special=*/false, /*parse_special=*/false);
    ids.insert(ids.end(), doc.begin(), doc.end());
    ids.push_back(sep);
    return ids;
}

bool is_bert_architecture(const std::string& architecture) {
    return architecture == "bert" || architecture == "nomic-bert";
}

std::unique_ptr<llm::EmbeddingModel> load_embedding_model(const std::string& path) {
    return load_embedding_model(gguf::GgufFile::open(path));
}

std::unique_ptr<llm::EmbeddingModel> load_embedding_model(gguf::GgufFile file) {
    return std::make_unique<BertEmbeddingModel>(std::move(file));
}

}  // namespace forge::bert
