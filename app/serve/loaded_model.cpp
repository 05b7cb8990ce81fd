#include "app/serve/loaded_model.h"

#include "app/context_size.h"
#include "app/lora_flags.h"
#include "app/serve/api_error.h"
#include "app/serve/prompt_budget.h"
#include "core/gguf/metadata.h"
#include "core/infer/kv_cache.h"
#include "models/bert/embedding_model.h"
#include "models/llm/llama_embedding_model.h"

#include <fmt/format.h>

namespace forge::app::serve {

namespace {

llm::SchedulerOptions scheduler_options(const ServeOptions& o, std::int64_t n_ctx, const llm::Tokenizer& tokenizer) {
    llm::SchedulerOptions s;
    s.n_slots = o.parallel;
    s.n_ctx = n_ctx;
    s.max_queue = o.queue;
    s.kv_type = llm::kv_type_from_name(o.kv_type);
    s.speculation = o.speculation;
    if (!o.lookup_text.empty()) s.speculation.lookup.reference = llm::lookup_reference(tokenizer, o.lookup_text);
    return s;
}

// -c (or its default) for this model: capped at the length it was trained on (issue 29:
// clients cannot see a warning that answers past it are garbage).
std::int64_t slot_context(const ServeOptions& o, const llm::Model& model) {
    return context_size(o.ctx_size_given ? std::optional(o.ctx_size) : std::nullopt, model.hparams().n_ctx_train, o.ctx_size,
                        "-c", PastTrainedLength::Cap);
}

// The model with --lora's adapters attached (before its scheduler makes its forward pass).
llm::Model with_adapters(llm::Model model, const ServeOptions& o) {
    attach_lora_adapters(model, o.lora);
    return model;
}

// --pooling, for every file's encoder.
llm::EmbeddingOptions encoder_options(const ServeOptions& o) {
    llm::EmbeddingOptions encoder;
    if (!o.pooling.empty()) encoder.pooling = llm::pooling_from_name(o.pooling);
    return encoder;
}

}  // namespace

bool is_embedding_only(const std::string& architecture) { return bert::is_bert_architecture(architecture); }

ChatModel::ChatModel(gguf::GgufFile file, const ServeOptions& options)
    : model(with_adapters(llm::Model::from_file(std::move(file)), options)),
      n_ctx(slot_context(options, model)),
      format(model),
      scheduler(model, format.tokenizer(), scheduler_options(options, n_ctx, format.tokenizer())),
      vocabulary(std::make_shared<const llm::grammar::VocabularyIndex>(format.tokenizer())),
      tool_format(llm::tool_calls::detect_tool_format(format.chat_template())),
      longest_token(longest_token_bytes(format.tokenizer())),
      lora_scales(model.lora() ? model.lora()->default_scales() : std::vector<float>{}) {}

LoadedModel::LoadedModel(const ModelSource& source, const ServeOptions& options) : name(source.id), path(source.path) {
    gguf::GgufFile file = gguf::GgufFile::open(source.path);
    architecture = gguf::Metadata(file).string("general.architecture");
    if (is_embedding_only(architecture)) {
        // --pooling is refused for these files, as `forge embed` refuses it (they pool as their
        // {arch}.pooling_type says).
        embedder = llm::load_embedding_model(std::move(file), encoder_options(options));
        return;
    }
    chat = std::make_unique<ChatModel>(std::move(file), options);
    llm::EmbeddingOptions encoder = encoder_options(options);
    encoder.n_ctx = chat->n_ctx;
    // The encoder shares this load of the model (a non-owning pointer: it is destroyed first).
    embedder = std::make_unique<llm::LlamaEmbeddingModel>(std::shared_ptr<const llm::Model>(std::shared_ptr<const llm::Model>(), &chat->model),
                                                          encoder);
}

ChatModel& LoadedModel::chat_model(std::string_view embedding_route) const {
    if (!chat) {
        throw invalid_request(fmt::format("model '{}' is an embedding model ({}); use {}", name, architecture, embedding_route), "model",
                              "model_not_chat");
    }
    return *chat;
}

std::int64_t LoadedModel::n_ctx() const { return chat ? chat->n_ctx : embedder->n_ctx(); }

const llm::Tokenizer& LoadedModel::tokenizer() const { return chat ? chat->format.tokenizer() : embedder->tokenizer(); }

const gguf::GgufFile& LoadedModel::file() const { return chat ? chat->model.file() : embedder->file(); }

}  // namespace forge::app::serve
