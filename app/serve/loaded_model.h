// What `forge serve` holds for one loaded model, of one of two kinds, decided by the file's
// general.architecture:
//   a chat model (llama, qwen2, qwen3, qwen3moe, smollm3, phi3, gpt-oss): the model, its prompt format and scheduler, what
//       structured output and tool calls need, and the same weights as a text encoder for the
//       embedding routes (its pooling is the file's, or --pooling);
//   an embedding-only model (bert, nomic-bert: bge, all-MiniLM, nomic-embed): only the text
//       encoder. The embedding, rerank and tokenizer routes serve it; a route that generates
//       text answers 400 naming the model (chat_model()).
// Both kinds live in the same registry and count the same under --models-max and
// --models-memory (model_registry.h): what the policy weighs is the file's size.
#pragma once

#include "app/serve/lora_adapters.h"
#include "app/serve/model_source.h"
#include "app/serve/options.h"
#include "core/gguf/gguf_file.h"
#include "models/llm/embedding_model.h"
#include "models/llm/grammar/vocabulary_index.h"
#include "models/llm/model.h"
#include "models/llm/scheduler.h"
#include "models/llm/sequence_generator.h"
#include "models/llm/tool_calls/tool_format.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace forge::app::serve {

// A chat model's generation parts: the model, its prompt format and scheduler, and what
// structured output and tool calls need from it.
struct ChatModel {
    ChatModel(gguf::GgufFile file, const ServeOptions& options);
    llm::Model model;
    std::int64_t n_ctx;  // positions per slot: -c (or its default), capped at the trained length
    llm::PromptFormat format;
    llm::Scheduler scheduler;
    // Structured output: the vocabulary as the grammar engine walks it (built once, shared by
    // every constrained request), and how this model writes tool calls (from its template).
    std::shared_ptr<const llm::grammar::VocabularyIndex> vocabulary;
    llm::tool_calls::ToolFormat tool_format;
    std::size_t longest_token;  // bytes of the longest vocabulary entry (prompt_budget.h)
    // --lora: the scales requests run with unless they bring their own (lora_adapters.h).
    GlobalLoraScales lora_scales;
};

// Made by the registry on a model's first use.
struct LoadedModel {
    LoadedModel(const ModelSource& source, const ServeOptions& options);

    std::string name;  // its id in the API
    std::string path;
    std::string architecture;  // general.architecture
    // The generation parts; null for an embedding-only model. Declared before `embedder`,
    // which may read this model's weights: the encoder is destroyed first.
    std::unique_ptr<ChatModel> chat;
    // The text encoder, for the embedding and rerank routes (embedding_routes.cpp). One
    // request at a time: its buffers are its own.
    std::unique_ptr<llm::EmbeddingModel> embedder;
    std::mutex embedding_mutex;

    bool is_chat() const { return chat != nullptr; }
    // The generation parts. Throws ApiError 400 for an embedding-only model: "model 'X' is an
    // embedding model; use `embedding_route`" (the route of the caller's API).
    ChatModel& chat_model(std::string_view embedding_route = "/v1/embeddings") const;
    std::int64_t n_ctx() const;  // a slot's positions, or the encoder's longest input
    const llm::Tokenizer& tokenizer() const;
    // The GGUF file (its header and metadata, for /api/show and /api/tags): the chat model's
    // or the encoder's.
    const gguf::GgufFile& file() const;
};

// Whether a GGUF of this architecture is served as an embedding-only model.
bool is_embedding_only(const std::string& architecture);

}  // namespace forge::app::serve
