// A tokenizer vocabulary as GGUF stores it (tokenizer.ggml.*): token texts, scores and
// types, BPE merges, the special token ids and the add_bos / add_eos switches. Pure data plus
// lookups; the algorithms live in bpe.h, sentencepiece.h and wordpiece.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace forge::gguf {
class GgufFile;
}

namespace forge::llm {

// llama.cpp's llama_token_type numbering, which is what tokenizer.ggml.token_type stores.
enum class TokenType : std::int32_t {
    Undefined = 0, Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6,
};

enum class VocabKind { Bpe, SentencePiece, WordPiece };

struct TokenData {
    std::string text;
    float score = 0.0f;
    TokenType type = TokenType::Normal;
};

struct SpecialIds {
    std::int32_t bos = -1, eos = -1, eot = -1, unk = -1, pad = -1;
    std::int32_t sep = -1;  // WordPiece's [SEP], appended after the text (bos is its [CLS])
};

class Vocab {
public:
    static Vocab from_gguf(const gguf::GgufFile& file);

    VocabKind kind() const { return kind_; }
    const std::string& pre_tokenizer() const { return pre_; }  // tokenizer.ggml.pre ("" if absent)
    std::int32_t size() const { return static_cast<std::int32_t>(tokens_.size()); }
    const TokenData& token(std::int32_t id) const;  // throws if out of range
    std::optional<std::int32_t> find(std::string_view text) const;

    // Rank of the merge "left right" (lower merges first), or -1.
    int merge_rank(std::string_view left, std::string_view right) const;

    const SpecialIds& special() const { return special_; }
    bool add_bos() const { return add_bos_; }
    bool add_eos() const { return add_eos_; }
    bool add_space_prefix() const { return add_space_prefix_; }
    bool is_end_of_generation(std::int32_t id) const;

    // Control, user-defined and unknown tokens, longest text first: what encode() splits out.
    const std::vector<std::int32_t>& special_tokens_longest_first() const { return specials_; }

    // Building by hand (tests): tokens in id order, merges as "left right".
    Vocab(VocabKind kind, std::string pre, std::vector<TokenData> tokens, std::vector<std::string> merges,
          SpecialIds special, bool add_bos, bool add_eos, bool add_space_prefix);

private:
    void index();
    void mark_end_of_generation();
    void mark_harmony_tokens();

    VocabKind kind_;
    std::string pre_;
    std::vector<TokenData> tokens_;
    std::unordered_map<std::string, std::int32_t> ids_;
    std::unordered_map<std::string, int> merge_ranks_;  // key "left right"
    SpecialIds special_;
    std::vector<std::int32_t> end_of_generation_;
    std::vector<std::int32_t> specials_;
    bool add_bos_ = false, add_eos_ = false, add_space_prefix_ = false;
};

}  // namespace forge::llm
