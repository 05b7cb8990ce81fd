#include "models/asr/char_vocabulary.h"

#include "core/error.h"
#include "models/asr/gguf_keys.h"
#include "models/asr/wer.h"

#include <algorithm>
#include <set>

namespace forge::asr {
namespace {

constexpr std::string_view kSpacePiece = "\xE2\x96\x81";  // U+2581 LOWER ONE EIGHTH BLOCK

// Bytes of the UTF-8 character that starts with `lead` (0 if `lead` cannot start one).
std::size_t utf8_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 0;
}

bool is_one_character(std::string_view piece) {
    return !piece.empty() && utf8_length(static_cast<unsigned char>(piece[0])) == piece.size();
}

std::string key(std::string_view k) { return std::string(k); }

const gguf::Value& required(const gguf::GgufFile& file, std::string_view k) {
    const gguf::Value* v = file.find(k);
    if (v == nullptr) throw FormatError(fmt::format("{}: missing key {}", file.source(), k));
    return *v;
}

std::int64_t required_int(const gguf::GgufFile& file, std::string_view k) {
    const auto v = required(file, k).as_int();
    if (!v) throw FormatError(fmt::format("{}: {} must be an integer", file.source(), k));
    return *v;
}

}  // namespace

CharVocabulary CharVocabulary::english() {
    std::vector<std::string> pieces{std::string(kSpacePiece)};
    for (char c = 'a'; c <= 'z'; ++c) pieces.emplace_back(1, c);
    pieces.emplace_back("'");
    return CharVocabulary(std::move(pieces));
}

CharVocabulary::CharVocabulary(std::vector<std::string> pieces) : pieces_(std::move(pieces)) {
    check(!pieces_.empty(), "character vocabulary: no pieces");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < pieces_.size(); ++i) {
        check(is_one_character(pieces_[i]), "character vocabulary: piece {} ('{}') is not one UTF-8 character", i,
              pieces_[i]);
        check(seen.insert(pieces_[i]).second, "character vocabulary: piece '{}' appears twice", pieces_[i]);
        if (pieces_[i] == kSpacePiece) space_id_ = static_cast<std::int32_t>(i);
    }
}

std::vector<std::int32_t> CharVocabulary::encode(std::string_view text) const {
    std::vector<std::int32_t> ids;
    std::size_t offset = 0;  // in the normalised text, words joined by single spaces
    for (const std::string& word : normalize_words(text)) {
        if (!ids.empty()) {
            check(space_id_ >= 0, "character vocabulary: no '▁' piece for the space at offset {} of \"{}\"", offset,
                  text);
            ids.push_back(space_id_);
            ++offset;
        }
        for (std::size_t i = 0; i < word.size();) {
            const std::size_t n = std::max<std::size_t>(1, utf8_length(static_cast<unsigned char>(word[i])));
            const std::string_view ch = std::string_view(word).substr(i, n);
            const auto it = std::find(pieces_.begin(), pieces_.end(), ch);
            check(it != pieces_.end(), "character vocabulary: no piece for '{}' at offset {} of \"{}\"", ch,
                  offset + i, text);
            ids.push_back(static_cast<std::int32_t>(it - pieces_.begin()));
            i += n;
        }
        offset += word.size();
    }
    return ids;
}

std::string CharVocabulary::decode(std::span<const std::int32_t> ids) const {
    std::string joined;
    for (const std::int32_t id : ids) {
        check(id >= 0 && id <= blank_id(), "character vocabulary: token id {} is outside [0, {}]", id, blank_id());
        if (id == blank_id()) continue;
        joined += id == space_id_ ? std::string(" ") : pieces_[static_cast<std::size_t>(id)];
    }
    std::string out;  // collapse runs of spaces, trim both ends
    for (const char c : joined) {
        if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
        out.push_back(c);
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

void CharVocabulary::add_to_gguf(gguf::GgufWriter& writer) const {
    gguf::Array pieces{gguf::ValueType::String, {}};
    for (const std::string& p : pieces_) pieces.items.emplace_back(p);
    writer.set(key(keys::kVocabSize), static_cast<std::uint32_t>(size()));
    writer.set(key(keys::kBlankId), static_cast<std::uint32_t>(blank_id()));
    writer.set(key(keys::kTokenizerPieces), std::move(pieces));
}

CharVocabulary CharVocabulary::from_gguf(const gguf::GgufFile& file) {
    const gguf::Array* array = required(file, keys::kTokenizerPieces).array();
    if (array == nullptr || array->element_type != gguf::ValueType::String)
        throw FormatError(fmt::format("{}: {} must be an array of strings", file.source(), keys::kTokenizerPieces));
    std::vector<std::string> pieces;
    for (const gguf::Value& v : array->items) pieces.push_back(*v.string());
    const std::int64_t vocab_size = required_int(file, keys::kVocabSize);
    const std::int64_t blank = required_int(file, keys::kBlankId);
    if (vocab_size != static_cast<std::int64_t>(pieces.size()))
        throw FormatError(fmt::format("{}: {} is {} but {} has {} pieces", file.source(), keys::kVocabSize,
                                      vocab_size, keys::kTokenizerPieces, pieces.size()));
    if (blank != vocab_size)
        throw FormatError(fmt::format("{}: {} is {}, expected {} (the blank follows the pieces)", file.source(),
                                      keys::kBlankId, blank, vocab_size));
    try {
        return CharVocabulary(std::move(pieces));
    } catch (const Error& e) {
        throw FormatError(fmt::format("{}: {}: {}", file.source(), keys::kTokenizerPieces, e.what()));
    }
}

}  // namespace forge::asr
