#include "models/asr/vocabulary.h"

#include "core/error.h"
#include "core/gguf/metadata.h"
#include "core/utf8.h"
#include "models/asr/gguf_keys.h"
#include "models/asr/wer.h"

namespace forge::asr {

Vocabulary Vocabulary::characters() {
    std::vector<std::string> pieces{std::string(kWordStart)};
    for (char c = 'a'; c <= 'z'; ++c) pieces.emplace_back(1, c);
    pieces.emplace_back("'");
    return Vocabulary(std::move(pieces));
}

Vocabulary::Vocabulary(std::vector<std::string> pieces) : pieces_(std::move(pieces)) {
    check(!pieces_.empty(), "vocabulary: no pieces");
    for (std::size_t i = 0; i < pieces_.size(); ++i) {
        check(!pieces_[i].empty() && utf8::is_valid(pieces_[i]), "vocabulary: piece {} is empty or not UTF-8", i);
        check(ids_.emplace(pieces_[i], static_cast<std::int32_t>(i)).second, "vocabulary: piece '{}' appears twice",
              pieces_[i]);
        longest_ = std::max(longest_, pieces_[i].size());
    }
}

std::vector<std::int32_t> Vocabulary::encode(std::string_view text) const {
    std::string marked;
    for (const std::string& word : normalize_words(text)) marked += std::string(kWordStart) + word;
    std::vector<std::int32_t> ids;
    for (std::size_t at = 0; at < marked.size();) {
        std::size_t length = std::min(longest_, marked.size() - at);
        for (; length > 0; --length) {
            const auto it = ids_.find(marked.substr(at, length));
            if (it != ids_.end()) {
                ids.push_back(it->second);
                break;
            }
        }
        if (length == 0) {
            const std::size_t n = std::max<std::size_t>(1, utf8::lead_length(static_cast<unsigned char>(marked[at])));
            fail("vocabulary: no piece for '{}' at offset {} of \"{}\"", marked.substr(at, n), at, marked);
        }
        at += length;
    }
    return ids;
}

std::string Vocabulary::decode(std::span<const std::int32_t> ids) const {
    std::string joined;
    for (const std::int32_t id : ids) {
        check(id >= 0 && id <= blank_id(), "vocabulary: token id {} is outside [0, {}]", id, blank_id());
        if (id != blank_id()) joined += pieces_[static_cast<std::size_t>(id)];
    }
    std::string out;  // "▁" -> space, runs collapsed, both ends trimmed
    for (std::size_t i = 0; i < joined.size();) {
        if (joined.compare(i, kWordStart.size(), kWordStart) == 0 || joined[i] == ' ') {
            if (!out.empty() && out.back() != ' ') out.push_back(' ');
            i += joined[i] == ' ' ? 1 : kWordStart.size();
        } else {
            out.push_back(joined[i++]);
        }
    }
    if (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

void Vocabulary::add_to_gguf(gguf::GgufWriter& writer) const {
    gguf::Array pieces{gguf::ValueType::String, {}};
    for (const std::string& p : pieces_) pieces.items.emplace_back(p);
    writer.set(std::string(keys::kVocabSize), static_cast<std::uint32_t>(size()));
    writer.set(std::string(keys::kBlankId), static_cast<std::uint32_t>(blank_id()));
    writer.set(std::string(keys::kTokenizerPieces), std::move(pieces));
}

Vocabulary Vocabulary::from_gguf(const gguf::GgufFile& file) {
    const gguf::Metadata meta(file);
    std::vector<std::string> pieces;
    for (const gguf::Value& v : meta.array(keys::kTokenizerPieces, gguf::ValueType::String).items)
        pieces.push_back(*v.string());
    const std::int64_t vocab_size = meta.integer(keys::kVocabSize);
    const std::int64_t blank = meta.integer(keys::kBlankId);
    check_format(vocab_size == static_cast<std::int64_t>(pieces.size()), "{}: {} is {} but {} has {} pieces",
                 file.source(), keys::kVocabSize, vocab_size, keys::kTokenizerPieces, pieces.size());
    check_format(blank == vocab_size, "{}: {} is {}, expected {} (the blank follows the pieces)", file.source(),
                 keys::kBlankId, blank, vocab_size);
    try {
        return Vocabulary(std::move(pieces));
    } catch (const Error& e) {
        fail_format("{}: {}: {}", file.source(), keys::kTokenizerPieces, e.what());
    }
}

}  // namespace forge::asr
