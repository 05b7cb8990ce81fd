// Word error rate: the normalisation, the edit counts, and pocketsphinx's published score on
// the LibriVox clips of Debian pocketsphinx-testdata (test-lm.match against transcription:
// 20 errors in 71 words, 28.2%), reproduced from the five lines copied here.
#include "models/asr/wer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace forge::asr {
namespace {

using Words = std::vector<std::string>;

TEST(NormalizeWords, LowerCasesAndSplitsOnPunctuation) {
    EXPECT_EQ(normalize_words("Hello, World!  It's a well-known \"test\"."),
              (Words{"hello", "world", "it's", "a", "well", "known", "test"}));
}

TEST(NormalizeWords, DropsApostrophesAtWordEdgesOnly) {
    EXPECT_EQ(normalize_words("'Tis the dogs' bone, isn't it? ''"), (Words{"tis", "the", "dogs", "bone", "isn't", "it"}));
}

TEST(NormalizeWords, KeepsDigitsAndNonAsciiBytes) {
    EXPECT_EQ(normalize_words("Café 42\tnaïve\n"), (Words{"café", "42", "naïve"}));
    EXPECT_TRUE(normalize_words(" ...  ").empty());
}

TEST(WordErrors, CountsEachKindOfEdit) {
    const WordErrors e = word_errors("the cat sat on the mat", "well the bat sat on mat");
    EXPECT_EQ(e.substitutions, 1);  // cat -> bat
    EXPECT_EQ(e.deletions, 1);      // the (before mat)
    EXPECT_EQ(e.insertions, 1);     // well
    EXPECT_EQ(e.reference_words, 6);
    EXPECT_DOUBLE_EQ(e.rate(), 3.0 / 6.0);
}

TEST(WordErrors, PrefersSubstitutionsAmongEqualCosts) {
    // Three substitutions or one deletion, one substitution and one insertion: both cost 3.
    const WordErrors e = word_errors("the cat sat on the mat", "the bat sat on mat today");
    EXPECT_EQ(e.errors(), 3);
    EXPECT_EQ(e.substitutions, 3);
}

TEST(WordErrors, IgnoresCaseAndPunctuation) {
    EXPECT_EQ(word_errors("He was not an ill-disposed young man.", "he was not an ill disposed young man").errors(), 0);
}

TEST(WordErrors, EmptyTexts) {
    EXPECT_EQ(word_errors("", "").rate(), 0.0);
    EXPECT_EQ(word_errors("one two", "").deletions, 2);
    EXPECT_DOUBLE_EQ(word_errors("one two", "").rate(), 1.0);
    EXPECT_TRUE(std::isinf(word_errors("", "noise").rate()));
}

TEST(WordErrors, CanExceedOneWithInsertions) {
    EXPECT_DOUBLE_EQ(word_errors("yes", "yes yes yes").rate(), 2.0);
}

TEST(WordErrors, ReproducesPocketsphinxOnTheLibrivoxClips) {
    // transcription (references, <s> </s> removed) and test-lm.match (pocketsphinx's output).
    const std::vector<std::pair<const char*, const char*>> clips = {
        {"and mister john dashwood had then leisure to consider how much there might be prudently in his power "
         "to do for them",
         "but mr john guess would have been at leisure to consider how much there might be prickly in his power to "
         "do for"},
        {"he was not an ill disposed young man", "he was not an illness those young man"},
        {"unless to be rather cold hearted and rather selfish is to be ill disposed",
         "homeless to be rather cold hearted and rather selfish is to be oldest those"},
        {"had he married a more a amiable woman he might have been made still more respectable than he was",
         "had he married a more amiable woman he might have been made still more respectable many watts"},
        {"he might even have been made amiable himself", "he might even have been made the amiable itself"},
    };
    const std::vector<std::int64_t> per_clip = {9, 2, 3, 4, 2};
    WordErrors total;
    for (std::size_t i = 0; i < clips.size(); ++i) {
        const WordErrors e = word_errors(clips[i].first, clips[i].second);
        EXPECT_EQ(e.errors(), per_clip[i]) << "clip " << i;
        total += e;
    }
    EXPECT_EQ(total.errors(), 20);
    EXPECT_EQ(total.reference_words, 71);
    EXPECT_NEAR(total.rate(), 0.282, 0.0005);
}

}  // namespace
}  // namespace forge::asr
