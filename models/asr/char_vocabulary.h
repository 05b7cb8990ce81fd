// The character vocabulary of forge's bundled speech model, written the way the Parakeet GGUF
// layout stores a tokenizer (models/asr/gguf_keys.h): pieces with ids 0..V-1 and the CTC
// blank at id V.
//
// The English set is "▁" (a space, SentencePiece's word boundary), "a".."z" and "'": V = 28,
// blank 28. A text is tokenised after the word error rate's normalisation (models/asr/wer.h:
// lower case, punctuation and hyphens split words), so what the model learns to write is
// exactly what the scorer compares. Words are joined by "▁"; the first word has none before
// it (one label fewer per utterance; decoders that drop a leading space read either way).
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::asr {

class CharVocabulary {
public:
    static CharVocabulary english();

    // Pieces must be distinct, non-empty, one UTF-8 character each.
    explicit CharVocabulary(std::vector<std::string> pieces);

    std::int32_t size() const { return static_cast<std::int32_t>(pieces_.size()); }  // V, blank excluded
    std::int32_t blank_id() const { return size(); }
    std::int32_t classes() const { return size() + 1; }  // what a CTC head outputs
    const std::vector<std::string>& pieces() const { return pieces_; }

    // Normalise, then one id per character; throws an Error naming a character that has no
    // piece (and its byte offset in the normalised text).
    std::vector<std::int32_t> encode(std::string_view text) const;
    // Pieces concatenated, "▁" read as a space, outer spaces trimmed and inner runs collapsed.
    // Blank ids are skipped (CTC's collapse of repeats is the decoder's job, not this one's).
    std::string decode(std::span<const std::int32_t> ids) const;

    void add_to_gguf(gguf::GgufWriter& writer) const;
    // Reads and checks parakeet.tokenizer.pieces, parakeet.vocab_size and parakeet.blank_id;
    // errors name the file and the key. Only single-character pieces are accepted.
    static CharVocabulary from_gguf(const gguf::GgufFile& file);

private:
    std::vector<std::string> pieces_;
    std::int32_t space_id_ = -1;  // the "▁" piece, if any
};

}  // namespace forge::asr
