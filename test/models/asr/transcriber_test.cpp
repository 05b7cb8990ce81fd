// Transcription end to end on the oracle's clip: one window is the model's own result; long
// audio in overlapping windows; words and times from tokens.
#include "models/asr/transcriber.h"
#include "test/models/asr/oracle.h"

#include <gtest/gtest.h>

namespace forge::asr {
namespace {

using testing::clip;
using testing::Expected;
using testing::model_path;

TEST(Transcriber, OneWindowGivesTheOracleTokensAndText) {
    const ParakeetModel model = ParakeetModel::load(model_path("ctc"));
    const Transcript t = Transcriber(model)(clip());
    EXPECT_EQ(t.tokens, Expected("ctc").ints("ctc.tokens"));  // [6, 4]: "r", "▁is"
    EXPECT_EQ(t.text, "r is");
    ASSERT_EQ(t.words.size(), 2u);
    EXPECT_DOUBLE_EQ(t.duration, 1.3);
}

TEST(Transcriber, TransducerAndCtcHeadsOfAHybrid) {
    const ParakeetModel model = ParakeetModel::load(model_path("tdt_ctc"));
    const Expected expected("tdt_ctc");
    const Transcriber transcribe(model);
    EXPECT_EQ(transcribe(clip(), {.decoder = DecoderChoice::Ctc}).tokens, expected.ints("ctc.tokens"));
    // The oracle decodes with 3 symbols per frame at most.
    EXPECT_EQ(transcribe(clip(), {.decoder = DecoderChoice::Auto, .max_symbols = 3}).tokens,
              expected.ints("transducer.tokens"));
    EXPECT_THROW(Transcriber(ParakeetModel::load(model_path("rnnt")))(clip(), {.decoder = DecoderChoice::Ctc}), Error);
}

TEST(Transcriber, LongAudioRunsInOverlappingWindows) {
    const ParakeetModel model = ParakeetModel::load(model_path("rnnt"));
    std::vector<float> audio;
    for (int i = 0; i < 5; ++i) {
        const auto c = clip();
        audio.insert(audio.end(), c.begin(), c.end());
    }
    const Transcript t = Transcriber(model)(audio, {.max_symbols = 2, .window_seconds = 2.0, .overlap_seconds = 0.5});
    EXPECT_DOUBLE_EQ(t.duration, 6.5);
    ASSERT_FALSE(t.tokens.empty());
    for (std::size_t i = 1; i < t.token_times.size(); ++i) EXPECT_LE(t.token_times[i - 1], t.token_times[i]);
    EXPECT_LE(t.token_times.back(), 6.5);
    EXPECT_LE(t.words.back().end, 6.5);
    // At most max_symbols tokens per encoder frame: windows neither lose nor double frames.
    EXPECT_LE(t.tokens.size(), static_cast<std::size_t>(2 * 6.5 / 0.08 + 2));
    EXPECT_GE(t.tokens.size(), static_cast<std::size_t>(6.5 / 0.08 / 2));
}

TEST(Transcriber, WordsStartAtSentencePieceSpaces) {
    ParakeetConfig c;
    c.pieces = {"\xE2\x96\x81" "the", "\xE2\x96\x81" "c", "at", "s"};
    c.vocab_size = 4;
    const std::int64_t tokens[] = {0, 1, 2, 3};
    const double times[] = {0.0, 0.4, 0.48, 0.8};
    const Transcript t = detokenize(c, tokens, times);
    EXPECT_EQ(t.text, "the cats");
    ASSERT_EQ(t.words.size(), 2u);
    EXPECT_EQ(t.words[1].text, "cats");
    EXPECT_DOUBLE_EQ(t.words[1].start, 0.4);
    EXPECT_DOUBLE_EQ(t.words[1].end, 0.88);  // one 80 ms frame after the last token
}

}  // namespace
}  // namespace forge::asr
