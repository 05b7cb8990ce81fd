// Training a byte-level BPE tokenizer from text, as karpathy's nanochat does for its chat
// models, and writing it as a vocabulary-only GGUF that `forge tokenize` and llama.cpp
// tokenize identically (llama.cpp loads it with vocab_only).
//
//   WordCounts words("llama-bpe");             // the pre-tokenizer: GPT-4's split regex
//   for (text : documents) words.add(text);
//   TrainedTokenizer tok = train_bpe_tokenizer(words, 8192);
//   tok.to_gguf().write("tok.gguf");           // or Tokenizer(tok.vocab()) in memory
//
// Token ids: 0..255 are the bytes (id = byte value), then the merged tokens in the order they
// were learned, then the special tokens. The pre-tokenizer is one llama.cpp knows by name
// (tokenizer.ggml.pre), so llama.cpp splits text with the same regex the trainer used.
// nanochat splits digits in groups of 1-2; llama.cpp knows no pre-tokenizer that does, so the
// choice is GPT-4's groups of 1-3 ("llama-bpe", the default) or single digits ("qwen2").
#pragma once

#include "core/gguf/gguf_writer.h"
#include "models/llm/tokenizer/bpe_merge_learner.h"
#include "models/llm/tokenizer/vocab.h"
#include "models/llm/tokenizer/word_counts.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

class Tokenizer;

// nanochat's conversation tokens: <|bos|> starts every document (and is BOS and EOS, as
// GPT-2's <|endoftext|>), a turn is <|user_start|> ... <|user_end|> or <|assistant_start|> ...
// <|assistant_end|> (the end of turn: generation stops there).
inline constexpr std::array<std::string_view, 5> kChatSpecialTokens = {
    "<|bos|>", "<|user_start|>", "<|user_end|>", "<|assistant_start|>", "<|assistant_end|>",
};

// The vocabulary sizes train_bpe_tokenizer accepts: every byte, every special token and at
// least one merge (else there is nothing to train), up to 2^18 tokens (twice Llama 3's).
inline constexpr std::int32_t kSmallestVocabulary = 256 + static_cast<std::int32_t>(kChatSpecialTokens.size()) + 1;
inline constexpr std::int32_t kLargestVocabulary = 1 << 18;

// The Jinja chat template for those tokens (tokenizer.chat_template). A system message is
// put in front of the first user message, as nanochat does. No BOS in the template: the
// tokenizer adds it (tokenizer.ggml.add_bos_token), as llama.cpp and forge chat do.
std::string_view trained_chat_template();

struct BpeTrainingProgress {
    std::int32_t tokens = 0, target = 0;
};

struct TrainedTokenizer {
    std::string pre_tokenizer;
    LearnedBpe bpe;  // byte and merged tokens (raw bytes) and the merges, in rank order

    std::int32_t vocab_size() const { return static_cast<std::int32_t>(bpe.tokens.size() + kChatSpecialTokens.size()); }
    std::int32_t special_id(std::size_t index) const { return static_cast<std::int32_t>(bpe.tokens.size() + index); }

    // The vocabulary as Tokenizer uses it, exactly as Vocab::from_gguf reads the file back.
    Vocab vocab() const;
    // Sets the tokenizer.ggml.* keys and tokenizer.chat_template (a model exporter calls this).
    void add_metadata(gguf::GgufWriter& writer) const;
    // A vocabulary-only GGUF (general.* + tokenizer.*, no tensors); GgufWriter::write(path)
    // writes it atomically.
    gguf::GgufWriter to_gguf() const;
};

// Learns merges until the vocabulary (bytes, merges and special tokens) has `vocab_size`
// tokens; the pre-tokenizer is the one `words` were split with. Throws forge::Error when the
// size is too small for the bytes and special tokens, or when the text runs out of pairs
// first (naming the largest size it supports).
TrainedTokenizer train_bpe_tokenizer(const WordCounts& words, std::int32_t vocab_size,
                                     const std::function<void(const BpeTrainingProgress&)>& progress = {});

// How many tokens `tokenizer` makes of the text `words` counted (each distinct word encoded
// once, times its count): the token count of the text itself, since encoding never merges
// across words.
std::int64_t count_tokens(const Tokenizer& tokenizer, const WordCounts& words);

}  // namespace forge::llm
