// The hyperparameters of a BERT-family encoder GGUF, read as llama.cpp reads them
// (src/llama-model.cpp, LLM_ARCH_BERT / LLM_ARCH_NOMIC_BERT):
//
//   bert:       absolute positions (a learned table of context_length rows), q/k/v/o and the
//               feed-forward with biases, GELU (bge, all-MiniLM, bge-reranker)
//   nomic-bert: rotary positions (NEOX pairs, rope.freq_base), a fused qkv and no biases,
//               SwiGLU feed-forward (nomic-embed-text)
//
// Both: token-type embeddings (row 0: llama.cpp feeds every token as "sentence A"), a
// LayerNorm over the embeddings, post-LayerNorm blocks, non-causal attention.
#pragma once

#include "models/llm/embedding_model.h"

#include <cstdint>
#include <string>

namespace forge::gguf {
class GgufFile;
}

namespace forge::bert {

enum class Arch { Bert, NomicBert };

struct Hparams {
    Arch arch = Arch::Bert;
    std::string arch_name;      // general.architecture, the metadata keys' prefix
    std::int64_t n_vocab = 0;   // tokenizer.ggml.tokens
    std::int64_t n_ctx = 0;     // {arch}.context_length: the most tokens one input may have
    std::int64_t n_embd = 0;
    std::int64_t n_head = 0;
    std::int64_t head_dim = 0;  // n_embd / n_head
    std::int64_t n_ff = 0;
    std::int64_t n_layer = 0;
    std::int64_t n_token_types = 0;  // tokenizer.ggml.token_type_count
    float norm_eps = 1e-12f;         // {arch}.attention.layer_norm_epsilon
    float rope_base = 10000.0f;      // nomic-bert: {arch}.rope.freq_base
    llm::Pooling pooling = llm::Pooling::None;
};

// Throws FormatError naming the file and the key on a missing, mistyped or out-of-range key,
// and for an architecture other than bert / nomic-bert.
Hparams read_hparams(const gguf::GgufFile& file);

}  // namespace forge::bert
