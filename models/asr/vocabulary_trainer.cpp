#include "models/asr/vocabulary_trainer.h"

#include "core/error.h"
#include "models/asr/wer.h"
#include "models/llm/tokenizer/bpe_merge_learner.h"

#include <map>

namespace forge::asr {
namespace {

// The byte that stands for "▁" while merging: the learner works on bytes, and "▁" is three.
constexpr char kWordStartByte = ' ';
constexpr std::int32_t kByteTokens = 256;  // the learner's first tokens: every byte

std::string as_piece(const std::string& token) {
    std::string piece;
    for (const char c : token) piece += c == kWordStartByte ? std::string(kWordStart) : std::string(1, c);
    return piece;
}

}  // namespace

Vocabulary train_subword_vocabulary(std::span<const std::string> transcripts, std::int32_t size) {
    const Vocabulary base = Vocabulary::characters();
    check(size >= base.size(), "subword vocabulary: size {} is smaller than the {} characters", size, base.size());
    std::map<std::string, std::int64_t> counts;  // ordered: the learner sees words in a fixed order
    for (const std::string& text : transcripts) {
        for (const std::string& word : normalize_words(text)) {
            for (const char c : word)
                check((c >= 'a' && c <= 'z') || c == '\'', "subword vocabulary: '{}' in \"{}\" is not a-z or '", c, text);
            ++counts[kWordStartByte + word];
        }
    }
    std::vector<llm::WordCount> words;
    for (const auto& [word, count] : counts) words.push_back({word, count});
    const llm::LearnedBpe learned = llm::learn_bpe_merges(words, kByteTokens + size - base.size());

    std::vector<std::string> pieces = base.pieces();
    for (const llm::BpeMerge& merge : learned.merges)
        pieces.push_back(as_piece(learned.tokens[static_cast<std::size_t>(merge.result)]));
    return Vocabulary(std::move(pieces));
}

}  // namespace forge::asr
