#include "models/llm/tokenizer/tokenizer.h"

#include "core/gguf/gguf_file.h"
#include "models/llm/tokenizer/bpe.h"
#include "models/llm/tokenizer/byte_level.h"
#include "models/llm/tokenizer/sentencepiece.h"
#include "models/llm/tokenizer/special_split.h"
#include "models/llm/tokenizer/wordpiece.h"

#include <charconv>
#include <variant>

namespace forge::llm {

// The algorithm for the text between special tokens; it points into the Tokenizer's Vocab,
// which stays put on a move because the Tokenizer holds both by unique_ptr.
class Tokenizer::Model {
public:
    explicit Model(const Vocab& vocab) : impl_(make(vocab)) {}

    // The ids of `text`; `after_special` is whether a special token (or the start) precedes it.
    void encode(const Vocab& vocab, std::string_view text, bool after_special, std::vector<std::int32_t>& out) const {
        if (const auto* bpe = std::get_if<BpeTokenizer>(&impl_)) {
            bpe->encode(text, out);
            return;
        }
        if (const auto* wordpiece = std::get_if<WordPieceTokenizer>(&impl_)) {
            wordpiece->encode(text, out);
            return;
        }
        // SentencePiece: "▁" marks a word start, so a fragment that begins the text or follows
        // a special token gets a leading space (llama.cpp: add_space_prefix && is_prev_special).
        const auto& spm = std::get<SentencePieceTokenizer>(impl_);
        if (vocab.add_space_prefix() && after_special) {
            spm.encode(std::string(" ").append(text), out);
        } else {
            spm.encode(text, out);
        }
    }

private:
    using Impl = std::variant<BpeTokenizer, SentencePieceTokenizer, WordPieceTokenizer>;

    static Impl make(const Vocab& vocab) {
        switch (vocab.kind()) {
            case VocabKind::Bpe: return BpeTokenizer(vocab);
            case VocabKind::SentencePiece: return SentencePieceTokenizer(vocab);
            case VocabKind::WordPiece: return WordPieceTokenizer(vocab);
        }
        return SentencePieceTokenizer(vocab);
    }

    Impl impl_;
};

Tokenizer Tokenizer::from_gguf(const gguf::GgufFile& file) { return Tokenizer(Vocab::from_gguf(file)); }

Tokenizer::Tokenizer(Vocab vocab)
    : vocab_(std::make_unique<const Vocab>(std::move(vocab))), model_(std::make_unique<const Model>(*vocab_)) {}

Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

std::vector<std::int32_t> Tokenizer::encode(std::string_view text, bool add_special, bool parse_special) const {
    std::vector<std::int32_t> ids;
    const bool bos = add_special && vocab_->add_bos() && bos_id() >= 0;
    if (bos) ids.push_back(bos_id());
    bool after_special = true;
    for (const Fragment& fragment : split_special_tokens(*vocab_, text, parse_special)) {
        if (fragment.id >= 0) {
            ids.push_back(fragment.id);
            after_special = true;
        } else {
            model_->encode(*vocab_, fragment.text, after_special, ids);
            after_special = false;
        }
    }
    if (add_special && vocab_->add_eos() && eos_id() >= 0) ids.push_back(eos_id());
    // WordPiece closes with [SEP] (llama.cpp: the WPM branch of llama_tokenize).
    if (add_special && vocab_->kind() == VocabKind::WordPiece && vocab_->special().sep >= 0) {
        ids.push_back(vocab_->special().sep);
    }
    return ids;
}

std::string Tokenizer::token_to_piece(std::int32_t id, bool special) const {
    // llama_vocab::token_to_piece: control tokens print only when asked; user-defined and
    // unknown tokens print their text as is; normal tokens undo the vocabulary's encoding.
    const TokenData& token = vocab_->token(id);
    switch (token.type) {
        case TokenType::Control: return special ? token.text : std::string();
        case TokenType::Unknown: return special ? token.text : std::string();
        case TokenType::UserDefined: return token.text;
        case TokenType::Byte:
            if (vocab_->kind() == VocabKind::SentencePiece && token.text.size() == 6) {
                // "<0xAB>"; a file may hold anything there, so parse without std::stoi's exceptions.
                unsigned value = 0;
                const char* digits = token.text.data() + 3;
                if (std::from_chars(digits, digits + 2, value, 16).ptr == digits + 2)
                    return std::string(1, static_cast<char>(value));
            }
            return std::string();
        case TokenType::Normal:
            // WordPiece marks a word start with "▁" as SentencePiece does.
            return vocab_->kind() == VocabKind::Bpe ? byte_level::decode(token.text) : unescape_whitespace(token.text);
        case TokenType::Undefined:
        case TokenType::Unused: return std::string();
    }
    return std::string();
}

std::string Tokenizer::decode(std::span<const std::int32_t> ids, bool special) const {
    std::string text;
    for (const std::int32_t id : ids) text += token_to_piece(id, special);
    return text;
}

}  // namespace forge::llm
