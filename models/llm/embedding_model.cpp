#include "models/llm/embedding_model.h"

#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/metadata.h"
#include "models/bert/embedding_model.h"
#include "models/llm/llama_embedding_model.h"

#include <array>
#include <utility>

namespace forge::llm {

namespace {

constexpr std::array<std::pair<std::string_view, Pooling>, 5> kPoolingNames = {{
    {"none", Pooling::None}, {"mean", Pooling::Mean}, {"cls", Pooling::Cls}, {"last", Pooling::Last}, {"rank", Pooling::Rank},
}};

void append_text(std::vector<std::int32_t>& tokens, const Tokenizer& tokenizer, std::string_view text) {
    const std::vector<std::int32_t> ids = tokenizer.encode(text, false, false);
    tokens.insert(tokens.end(), ids.begin(), ids.end());
}

}  // namespace

Pooling pooling_from_name(std::string_view name) {
    for (const auto& [known, pooling] : kPoolingNames) {
        if (name == known) return pooling;
    }
    fail("unknown pooling '{}': expected none, mean, cls, last or rank", name);
}

std::string_view pooling_name(Pooling pooling) {
    for (const auto& [name, known] : kPoolingNames) {
        if (pooling == known) return name;
    }
    return "unknown";
}

std::vector<std::vector<float>> EmbeddingModel::embed_batch(std::span<const std::vector<std::int32_t>> inputs) {
    std::vector<std::vector<float>> out;
    out.reserve(inputs.size());
    for (const auto& tokens : inputs) out.push_back(embed(tokens));
    return out;
}

std::vector<std::int32_t> EmbeddingModel::rerank_tokens(std::string_view query, std::string_view document) const {
    const Tokenizer& t = tokenizer();
    const bool bos = t.vocab().add_bos() && t.bos_id() >= 0, eos = t.vocab().add_eos() && t.eos_id() >= 0;
    std::vector<std::int32_t> tokens;
    if (bos) tokens.push_back(t.bos_id());
    append_text(tokens, t, query);
    if (eos) tokens.push_back(t.eos_id());
    append_text(tokens, t, document);
    if (eos) tokens.push_back(t.eos_id());
    return tokens;
}

std::unique_ptr<EmbeddingModel> load_embedding_model(const std::string& path, const EmbeddingOptions& options) {
    return load_embedding_model(gguf::GgufFile::open(path), options);
}

std::unique_ptr<EmbeddingModel> load_embedding_model(gguf::GgufFile file, const EmbeddingOptions& options) {
    const std::string path = file.source();
    const std::string arch = gguf::Metadata(file).string("general.architecture");
    if (arch == "llama" || arch == "qwen2" || arch == "qwen3") {
        auto model = std::make_shared<const Model>(Model::from_file(std::move(file)));
        return std::make_unique<LlamaEmbeddingModel>(std::move(model), options);
    }
    if (bert::is_bert_architecture(arch)) {  // bert, nomic-bert: pooled as the file says
        check_format(!options.pooling, "{}: a {} file pools as its {}.pooling_type says; --pooling applies to llama-family files",
                     path, arch, arch);
        return bert::load_embedding_model(std::move(file));
    }
    fail_format("{}: architecture '{}' is not a text encoder forge runs (llama, qwen2, qwen3, bert, nomic-bert)", path, arch);
}

}  // namespace forge::llm
