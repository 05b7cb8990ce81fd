#include "models/llm/llama_embedding_model.h"

#include "core/checked_math.h"
#include "core/error.h"
#include "core/gguf/metadata.h"
#include "core/gguf/tensor_loader.h"

#include <algorithm>
#include <cmath>

namespace forge::llm {

namespace {

// Rows of one forward pass: longer inputs run in passes of this many, continuing in the cache.
constexpr std::int64_t kRowsPerPass = 512;

// Placeholders of llama.cpp's rerank template.
constexpr std::string_view kQueryPlaceholder = "{query}", kDocumentPlaceholder = "{document}";

// The template with each placeholder replaced, in one pass: a query that itself contains
// "{document}" stays as written.
std::string fill_rerank_template(std::string_view tmpl, std::string_view query, std::string_view document) {
    std::string out;
    for (std::size_t at = 0; at < tmpl.size();) {
        if (tmpl.substr(at).starts_with(kQueryPlaceholder)) {
            out += query;
            at += kQueryPlaceholder.size();
        } else if (tmpl.substr(at).starts_with(kDocumentPlaceholder)) {
            out += document;
            at += kDocumentPlaceholder.size();
        } else {
            out += tmpl[at++];
        }
    }
    return out;
}

std::string read_rerank_template(const gguf::GgufFile& file) {
    return gguf::Metadata(file).string_or("tokenizer.chat_template.rerank", "");
}

}  // namespace

Pooling read_pooling(const gguf::GgufFile& file, const std::string& arch_name) {
    const auto type = gguf::Metadata(file).integer_or(arch_name + ".pooling_type", 0, {0, 4});
    return static_cast<Pooling>(type);
}

LlamaEmbeddingModel::LlamaEmbeddingModel(std::shared_ptr<const Model> model, const EmbeddingOptions& options)
    : model_(std::move(model)),
      tokenizer_(Tokenizer::from_gguf(model_->file())),
      pooling_(options.pooling.value_or(read_pooling(model_->file(), model_->hparams().arch_name))),
      n_ctx_(model_->hparams().n_ctx_train > 0 ? std::min(options.n_ctx, model_->hparams().n_ctx_train) : options.n_ctx),
      rerank_template_(read_rerank_template(model_->file())) {
    check(n_ctx_ > 0, "embedding: the context must hold at least one token, not {}", n_ctx_);
    if (pooling_ != Pooling::Rank) return;
    const gguf::TensorLoader load(model_->file());
    const std::string& source = model_->file().source();
    if (!load.has("cls.output.weight")) {
        fail_format("{}: pooling rank needs a classifier head (tensor cls.output.weight), and this file has none", source);
    }
    if (load.has("cls.weight")) {
        fail_format("{}: a rank model with a hidden classifier layer (cls.weight) is not supported for {}; only "
                    "cls.output.weight (Qwen3-Reranker)", source, model_->hparams().arch_name);
    }
    const gguf::TensorInfo& info = *model_->file().find_tensor("cls.output.weight");
    const std::int64_t n_out = info.dims.size() == 2 ? static_cast<std::int64_t>(info.dims[1]) : 0;
    const bool yes_no = n_out == 2 && model_->hparams().arch == Arch::Qwen3;
    if (n_out != 1 && !yes_no) {
        fail_format("{}: cls.output.weight must have one output (a score) or, for qwen3, two (yes, no); it has {}",
                    source, n_out);
    }
    cls_out_.weight = load.matrix("cls.output.weight", n_out, model_->hparams().n_embd);
    if (load.has("cls.output.bias")) cls_out_.bias = load.vector_f32("cls.output.bias", n_out);
    cls_scratch_ = std::make_unique<infer::ActivationScratch>(1, model_->hparams().n_embd);
}

std::int64_t LlamaEmbeddingModel::n_embd() const { return model_->hparams().n_embd; }

void LlamaEmbeddingModel::check_tokens(std::span<const std::int32_t> tokens) const {
    check(!tokens.empty(), "embedding: the input has no tokens");
    check(static_cast<std::int64_t>(tokens.size()) <= n_ctx_,
          "embedding: the input has {} tokens, more than the {} of the context", tokens.size(), n_ctx_);
    const std::int64_t n_vocab = model_->hparams().n_vocab;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        check(tokens[i] >= 0 && tokens[i] < n_vocab, "embedding: token id {} at {} is out of range [0, {})", tokens[i],
              i, n_vocab);
    }
}

// llama.cpp pools the first token for cls and the last for last; for rank, qwen3 rerankers
// read the last token, other architectures the first.
std::int64_t LlamaEmbeddingModel::pooled_row(std::int64_t n_tokens) const {
    const bool last = pooling_ == Pooling::Last || (pooling_ == Pooling::Rank && model_->hparams().arch == Arch::Qwen3);
    return last ? n_tokens - 1 : 0;
}

// The classifier over the pooled hidden state. Qwen3-Reranker's head has the "yes" and "no"
// rows of the language-model head; llama.cpp's softmax over the two is sigmoid(yes - no), so
// the score before any sigmoid is their difference.
float LlamaEmbeddingModel::rank_score(std::span<const float> hidden) {
    std::vector<float> out(static_cast<std::size_t>(cls_out_.n_out()));
    infer::linear(cls_out_, hidden, 1, out, *cls_scratch_);
    return out.size() == 2 ? out[0] - out[1] : out[0];
}

std::vector<float> LlamaEmbeddingModel::embed(std::span<const std::int32_t> tokens) {
    check_tokens(tokens);
    const auto n = static_cast<std::int64_t>(tokens.size());
    const auto width = sz(n_embd());
    // A cache for this input alone (keys and values f16, llama.cpp's default), and a pass
    // buffer for its rows: memory follows the input, not the longest one the model allows.
    infer::KvCache cache = make_kv_cache(*model_, 1, n, infer::KvType::F16);
    Forward forward(*model_, std::min(n, kRowsPerPass), cache);
    const bool every_row = pooling_ == Pooling::None || pooling_ == Pooling::Mean;
    const std::int64_t pooled = pooled_row(n);
    std::vector<float> hidden(every_row ? sz(n) * width : width);
    std::vector<infer::BatchRow> rows;
    for (std::int64_t start = 0; start < n; start += kRowsPerPass) {
        const std::int64_t end = std::min(n, start + kRowsPerPass);
        rows.clear();
        std::int64_t wanted = 0;
        for (std::int64_t p = start; p < end; ++p) {
            const bool wants = every_row || p == pooled;
            rows.push_back({tokens[sz(p)], p, 0, wants});
            wanted += wants ? 1 : 0;
        }
        const std::size_t at = every_row ? sz(start) * width : 0;
        forward.run_hidden(rows, cache, std::span(hidden).subspan(wanted > 0 ? at : 0, sz(wanted) * width));
    }
    switch (pooling_) {
        case Pooling::None:
        case Pooling::Cls:
        case Pooling::Last:
            return hidden;
        case Pooling::Mean: {
            std::vector<double> sum(width, 0.0);
            for (std::int64_t t = 0; t < n; ++t) {
                for (std::size_t i = 0; i < width; ++i) sum[i] += hidden[sz(t) * width + i];
            }
            std::vector<float> mean(width);
            for (std::size_t i = 0; i < width; ++i) mean[i] = static_cast<float>(sum[i] / static_cast<double>(n));
            return mean;
        }
        case Pooling::Rank:
            return {rank_score(hidden)};
    }
    fail("embedding: unknown pooling {}", static_cast<int>(pooling_));
}

std::vector<std::int32_t> LlamaEmbeddingModel::rerank_tokens(std::string_view query, std::string_view document) const {
    if (rerank_template_.empty()) return EmbeddingModel::rerank_tokens(query, document);
    return tokenizer_.encode(fill_rerank_template(rerank_template_, query, document), false, true);
}

}  // namespace forge::llm
