// The speech vocabulary: tokenising after the WER normalisation (greedy longest match),
// decoding, the subword trainer, and the round trip through the Parakeet GGUF tokenizer keys
// with every check.
#include "models/asr/vocabulary.h"

#include "core/error.h"
#include "models/asr/gguf_keys.h"
#include "models/asr/vocabulary_trainer.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace forge::asr {
namespace {

using Ids = std::vector<std::int32_t>;

TEST(Vocabulary, CharactersHave28PiecesAndTheBlankLast) {
    const Vocabulary v = Vocabulary::characters();
    EXPECT_EQ(v.size(), 28);
    EXPECT_EQ(v.blank_id(), 28);
    EXPECT_EQ(v.classes(), 29);
    EXPECT_EQ(v.pieces()[0], "\xE2\x96\x81");
    EXPECT_EQ(v.pieces()[1], "a");
    EXPECT_EQ(v.pieces()[27], "'");
}

TEST(Vocabulary, EncodesTheNormalisedWordsEachAfterAWordStart) {
    const Vocabulary v = Vocabulary::characters();
    EXPECT_EQ(v.encode("Ab, c'd!"), (Ids{0, 1, 2, 0, 3, 27, 4}));
    EXPECT_EQ(v.encode("  "), Ids{});
}

TEST(Vocabulary, EncodesWithTheLongestMatchingPiece) {
    const Vocabulary v({"\xE2\x96\x81", "a", "b", "\xE2\x96\x81" "a", "ab", "\xE2\x96\x81" "ab"});
    EXPECT_EQ(v.encode("ab aab b"), (Ids{5, 3, 4, 0, 2}));
    EXPECT_EQ(v.decode(v.encode("ab aab b")), "ab aab b");
}

TEST(Vocabulary, DecodeInvertsEncode) {
    const Vocabulary v = Vocabulary::characters();
    EXPECT_EQ(v.decode(v.encode("He was not an ill-disposed young man; 'twas so.")),
              "he was not an ill disposed young man twas so");
}

TEST(Vocabulary, DecodeSkipsBlanksAndCollapsesSpaces) {
    const Vocabulary v = Vocabulary::characters();
    EXPECT_EQ(v.decode(Ids{0, 8, 28, 9, 0, 0, 28, 0}), "hi");
    EXPECT_THROW(v.decode(Ids{29}), Error);
}

TEST(Vocabulary, RejectsCharactersWithoutAPiece) {
    const Vocabulary v = Vocabulary::characters();
    try {
        v.encode("in 1811");
        FAIL() << "accepted a digit";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no piece for '1' at offset 8"), std::string::npos) << e.what();
    }
}

TEST(Vocabulary, RejectsBadPieceLists) {
    EXPECT_THROW(Vocabulary({}), Error);
    EXPECT_THROW(Vocabulary({"a", ""}), Error);
    EXPECT_THROW(Vocabulary({"a", "a"}), Error);
    EXPECT_THROW(Vocabulary({"a", "\xE2\x96"}), Error);  // a cut UTF-8 character
}

TEST(SubwordVocabulary, LearnsFrequentWordsAsPieces) {
    const std::vector<std::string> texts = {"The cat and the dog.", "Then the other cat sat.", "the end, the end"};
    const Vocabulary v = train_subword_vocabulary(texts, 40);
    EXPECT_EQ(v.size(), 40);
    const auto& p = v.pieces();
    const auto characters = Vocabulary::characters().pieces();
    EXPECT_TRUE(std::equal(characters.begin(), characters.end(), p.begin()));
    EXPECT_NE(std::find(p.begin(), p.end(), "\xE2\x96\x81the"), p.end());  // 6 times: merged early
    EXPECT_EQ(v.encode("the").size(), 1u);
    for (const std::string& t : texts) {
        EXPECT_LT(v.encode(t).size(), Vocabulary::characters().encode(t).size());
        EXPECT_EQ(v.decode(v.encode(t)), Vocabulary::characters().decode(Vocabulary::characters().encode(t)));
    }
    EXPECT_EQ(train_subword_vocabulary(texts, 40).pieces(), p);  // deterministic
}

TEST(SubwordVocabulary, RejectsWhatTheCharactersCannotSpell) {
    const std::vector<std::string> texts = {"in 1811"};
    EXPECT_THROW(train_subword_vocabulary(texts, 40), Error);
    const std::vector<std::string> fine = {"fine"};
    EXPECT_THROW(train_subword_vocabulary(fine, 27), Error);
    EXPECT_LE(train_subword_vocabulary(fine, 1000).size(), 28 + 4);  // runs out of pairs
}

gguf::GgufFile parsed(const gguf::GgufWriter& w) { return gguf::GgufFile::parse(w.to_bytes(), "test.gguf"); }

TEST(Vocabulary, RoundTripsThroughTheParakeetKeys) {
    const std::vector<std::string> texts = {"round and round the ragged rock"};
    const Vocabulary trained = train_subword_vocabulary(texts, 36);
    gguf::GgufWriter w;
    trained.add_to_gguf(w);
    const gguf::GgufFile file = parsed(w);
    EXPECT_EQ(file.find(keys::kVocabSize)->as_int(), 36);
    EXPECT_EQ(file.find(keys::kBlankId)->as_int(), 36);
    EXPECT_EQ(Vocabulary::from_gguf(file).pieces(), trained.pieces());
}

void expect_format_error(const gguf::GgufWriter& w, const std::string& needle) {
    try {
        Vocabulary::from_gguf(parsed(w));
        ADD_FAILURE() << "accepted a file without " << needle;
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("test.gguf"), std::string::npos) << e.what();
    }
}

TEST(Vocabulary, FromGgufNamesTheBadKey) {
    gguf::GgufWriter good;
    Vocabulary::characters().add_to_gguf(good);

    gguf::GgufWriter missing = good;
    missing.remove(std::string(keys::kBlankId));
    expect_format_error(missing, "missing metadata key 'parakeet.blank_id'");

    gguf::GgufWriter size = good;
    size.set(std::string(keys::kVocabSize), std::uint32_t{27});
    expect_format_error(size, "parakeet.vocab_size is 27 but parakeet.tokenizer.pieces has 28");

    gguf::GgufWriter blank = good;
    blank.set(std::string(keys::kBlankId), std::uint32_t{0});
    expect_format_error(blank, "parakeet.blank_id is 0, expected 28");

    gguf::GgufWriter not_strings = good;
    not_strings.set(std::string(keys::kTokenizerPieces), gguf::Array{gguf::ValueType::U32, {std::uint32_t{1}}});
    expect_format_error(not_strings, "'parakeet.tokenizer.pieces' must be array[string], found array[u32]");

    gguf::GgufWriter repeated = good;
    repeated.set(std::string(keys::kTokenizerPieces), gguf::Array{gguf::ValueType::String, {"ab", "ab"}});
    repeated.set(std::string(keys::kVocabSize), std::uint32_t{2});
    repeated.set(std::string(keys::kBlankId), std::uint32_t{2});
    expect_format_error(repeated, "appears twice");
}

}  // namespace
}  // namespace forge::asr
