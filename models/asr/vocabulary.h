// The vocabulary of forge's speech models, written the way the Parakeet GGUF layout stores a
// tokenizer (models/asr/gguf_keys.h): pieces with ids 0..V-1 and the CTC blank at id V; "▁"
// (U+2581) inside a piece stands for the space before a word, as in SentencePiece.
//
// A text is tokenised after the word error rate's normalisation (models/asr/wer.h: lower case,
// punctuation and hyphens split words), so what a model learns to write is exactly what the
// scorer compares: every word gets a leading "▁" ("▁he▁was"), then the string is cut greedily
// into the longest pieces that match, left to right. A Parakeet file holds only the pieces (no
// merge ranks), so greedy longest match is the segmentation its readers can reproduce.
//
// Two vocabularies: characters() — "▁", "a".."z", "'" (V = 28, blank 28) — and the subword
// ones of models/asr/vocabulary_trainer.h, which add merged pieces to those 28. Why subwords:
// English speech runs at about 16 characters per second (median of tools/make_asr_data.sh's
// utterances; the LibriVox test clips too), more than the 12.5 frames per second a Parakeet
// encoder with 8x subsampling emits, and CTC needs a frame per label (docs/ASR_TRAINING.md).
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace forge::asr {

class Vocabulary {
public:
    static Vocabulary characters();

    // Pieces must be distinct, non-empty, valid UTF-8.
    explicit Vocabulary(std::vector<std::string> pieces);

    std::int32_t size() const { return static_cast<std::int32_t>(pieces_.size()); }  // V, blank excluded
    std::int32_t blank_id() const { return size(); }
    std::int32_t classes() const { return size() + 1; }  // what a CTC head outputs
    const std::vector<std::string>& pieces() const { return pieces_; }

    // Normalise, then greedy longest match; throws an Error naming a character that no piece
    // covers (and its byte offset in the "▁word▁word" string).
    std::vector<std::int32_t> encode(std::string_view text) const;
    // Pieces concatenated, "▁" read as a space, outer spaces trimmed and inner runs collapsed.
    // Blank ids are skipped (CTC's collapse of repeats is the decoder's job, not this one's).
    std::string decode(std::span<const std::int32_t> ids) const;

    void add_to_gguf(gguf::GgufWriter& writer) const;
    // Reads and checks parakeet.tokenizer.pieces, parakeet.vocab_size and parakeet.blank_id;
    // errors name the file and the key.
    static Vocabulary from_gguf(const gguf::GgufFile& file);

private:
    std::vector<std::string> pieces_;
    std::unordered_map<std::string, std::int32_t> ids_;
    std::size_t longest_ = 0;  // bytes of the longest piece
};

// The space marker "▁" (U+2581) as UTF-8.
inline constexpr std::string_view kWordStart = "\xE2\x96\x81";

}  // namespace forge::asr
