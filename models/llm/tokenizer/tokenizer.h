// The text side of a GGUF language model: text -> token ids -> text, built from the GGUF's
// `tokenizer.*` metadata alone, matching llama.cpp (src/llama-vocab.cpp) id for id.
//
//   tokenizer.ggml.model = "gpt2"  -> byte-level BPE; tokenizer.ggml.pre picks the
//                                    pre-tokenizer regex (gpt-2, llama-bpe, qwen2, default)
//   tokenizer.ggml.model = "llama" -> SentencePiece (scores, <0xXX> byte fallback, "▁" spaces)
//   tokenizer.ggml.model = "bert"  -> WordPiece (lowercased, accents stripped, longest match;
//                                    add_special gives [CLS] ... [SEP])
//
// encode() first splits out special tokens (control and user-defined, longest first), then
// runs the model on the text between them, exactly like llama_tokenize.
#pragma once

#include "models/llm/tokenizer/vocab.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::gguf {
class GgufFile;
}

namespace forge::llm {

class Tokenizer {
public:
    // Reads tokenizer.ggml.* from `file`; throws FormatError naming the key on bad metadata.
    static Tokenizer from_gguf(const gguf::GgufFile& file);
    explicit Tokenizer(Vocab vocab);

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    // add_special: prepend BOS / append EOS where the metadata asks for them.
    // parse_special: match control tokens in the text ("<|im_start|>"); user-defined tokens
    // ("<think>") are matched either way, as in llama.cpp.
    std::vector<std::int32_t> encode(std::string_view text, bool add_special, bool parse_special) const;

    // The token's bytes as text (byte-level BPE and "▁" undone, <0xXX> as the byte).
    // Control tokens give "" unless `special` is set.
    std::string token_to_piece(std::int32_t id, bool special = false) const;
    // Concatenated pieces; may end in the middle of a UTF-8 character (see TokenStreamDecoder).
    std::string decode(std::span<const std::int32_t> ids, bool special = false) const;

    // The token's text as stored in the vocabulary (byte-level / "▁" encoded).
    const std::string& token_text(std::int32_t id) const { return vocab_->token(id).text; }

    const Vocab& vocab() const { return *vocab_; }
    std::int32_t n_vocab() const { return vocab_->size(); }
    std::int32_t bos_id() const { return vocab_->special().bos; }  // -1 if none
    std::int32_t eos_id() const { return vocab_->special().eos; }  // -1 if none
    bool is_end_of_generation(std::int32_t id) const { return vocab_->is_end_of_generation(id); }

private:
    class Model;  // BPE, SentencePiece or WordPiece
    // Both on the heap so that a moved Tokenizer keeps the model's pointer into the vocab valid.
    std::unique_ptr<const Vocab> vocab_;
    std::unique_ptr<const Model> model_;
};

}  // namespace forge::llm
