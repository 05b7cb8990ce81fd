// The bundled model's character vocabulary: tokenising after the WER normalisation, decoding,
// and its round trip through the Parakeet GGUF tokenizer keys with every check.
#include "models/asr/char_vocabulary.h"

#include "core/error.h"
#include "models/asr/gguf_keys.h"

#include <gtest/gtest.h>

namespace forge::asr {
namespace {

using Ids = std::vector<std::int32_t>;

TEST(CharVocabulary, EnglishHas28PiecesAndTheBlankLast) {
    const CharVocabulary v = CharVocabulary::english();
    EXPECT_EQ(v.size(), 28);
    EXPECT_EQ(v.blank_id(), 28);
    EXPECT_EQ(v.classes(), 29);
    EXPECT_EQ(v.pieces()[0], "\xE2\x96\x81");
    EXPECT_EQ(v.pieces()[1], "a");
    EXPECT_EQ(v.pieces()[27], "'");
}

TEST(CharVocabulary, EncodesTheNormalisedWordsJoinedBySpaces) {
    const CharVocabulary v = CharVocabulary::english();
    EXPECT_EQ(v.encode("Ab, c'd!"), (Ids{1, 2, 0, 3, 27, 4}));
    EXPECT_EQ(v.encode("  "), Ids{});
}

TEST(CharVocabulary, DecodeInvertsEncode) {
    const CharVocabulary v = CharVocabulary::english();
    const std::string text = "He was not an ill-disposed young man; 'twas so.";
    EXPECT_EQ(v.decode(v.encode(text)), "he was not an ill disposed young man twas so");
}

TEST(CharVocabulary, DecodeSkipsBlanksAndCollapsesSpaces) {
    const CharVocabulary v = CharVocabulary::english();
    EXPECT_EQ(v.decode(Ids{0, 8, 28, 9, 0, 0, 28, 0}), "hi");
    EXPECT_THROW(v.decode(Ids{29}), Error);
}

TEST(CharVocabulary, RejectsCharactersWithoutAPiece) {
    const CharVocabulary v = CharVocabulary::english();
    try {
        v.encode("in 1811");
        FAIL() << "accepted a digit";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no piece for '1' at offset 3"), std::string::npos) << e.what();
    }
}

TEST(CharVocabulary, RejectsBadPieceLists) {
    EXPECT_THROW(CharVocabulary({}), Error);
    EXPECT_THROW(CharVocabulary({"a", "bc"}), Error);
    EXPECT_THROW(CharVocabulary({"a", "a"}), Error);
}

gguf::GgufFile parsed(const gguf::GgufWriter& w) { return gguf::GgufFile::parse(w.to_bytes(), "test.gguf"); }

TEST(CharVocabulary, RoundTripsThroughTheParakeetKeys) {
    gguf::GgufWriter w;
    CharVocabulary::english().add_to_gguf(w);
    const gguf::GgufFile file = parsed(w);
    EXPECT_EQ(file.find(keys::kVocabSize)->as_int(), 28);
    EXPECT_EQ(file.find(keys::kBlankId)->as_int(), 28);
    EXPECT_EQ(CharVocabulary::from_gguf(file).pieces(), CharVocabulary::english().pieces());
}

void expect_format_error(const gguf::GgufWriter& w, const std::string& needle) {
    try {
        CharVocabulary::from_gguf(parsed(w));
        ADD_FAILURE() << "accepted a file without " << needle;
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("test.gguf"), std::string::npos) << e.what();
    }
}

TEST(CharVocabulary, FromGgufNamesTheBadKey) {
    gguf::GgufWriter good;
    CharVocabulary::english().add_to_gguf(good);

    gguf::GgufWriter missing = good;
    missing.remove(std::string(keys::kBlankId));
    expect_format_error(missing, "missing key parakeet.blank_id");

    gguf::GgufWriter size = good;
    size.set(std::string(keys::kVocabSize), std::uint32_t{27});
    expect_format_error(size, "parakeet.vocab_size is 27 but parakeet.tokenizer.pieces has 28");

    gguf::GgufWriter blank = good;
    blank.set(std::string(keys::kBlankId), std::uint32_t{0});
    expect_format_error(blank, "parakeet.blank_id is 0, expected 28");

    gguf::GgufWriter not_strings = good;
    not_strings.set(std::string(keys::kTokenizerPieces), gguf::Array{gguf::ValueType::U32, {std::uint32_t{1}}});
    expect_format_error(not_strings, "parakeet.tokenizer.pieces must be an array of strings");

    gguf::GgufWriter long_piece = good;
    long_piece.set(std::string(keys::kTokenizerPieces), gguf::Array{gguf::ValueType::String, {"ab"}});
    long_piece.set(std::string(keys::kVocabSize), std::uint32_t{1});
    long_piece.set(std::string(keys::kBlankId), std::uint32_t{1});
    expect_format_error(long_piece, "is not one UTF-8 character");
}

}  // namespace
}  // namespace forge::asr
