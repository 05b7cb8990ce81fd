// `forge transcribe` and `forge bench transcribe` as a user runs them, on the oracle's CTC and
// TDT models (test/data/asr): every output format, WAV on stdin, resampled and stereo input,
// bad input as one `forge: error:` line with a non-zero exit, a vocabulary that carries escape
// sequences; and the bundled model on real speech against the PyTorch reference.
#include "core/audio/audio_file.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "test/app/forge_binary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace forge {
namespace {

using ::testing::HasSubstr;
using test::ForgeRun;
using test::quoted;

const std::string kDir = std::string(FORGE_TEST_DATA_DIR) + "/asr/";
const std::string kClip = kDir + "chirps.wav";
const std::string kCtc = " --model " + quoted(kDir + "ctc.gguf");
// Real speech from Debian pocketsphinx-testdata (tools/bootstrap.sh installs it).
const std::string kLibriVox = "/usr/share/pocketsphinx/test/data/librivox/";

ForgeRun transcribe(const std::string& args, const std::string& input = "") {
    return test::run_forge("transcribe " + args, input);
}

TEST(TranscribeCli, TextIsOneLinePerInput) {
    const ForgeRun run = transcribe(quoted(kClip) + " " + quoted(kClip) + kCtc);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.out, "r is\nr is\n");  // the oracle's CTC tokens [6, 4]
}

TEST(TranscribeCli, JsonHasWordsDurationAndRealTimeFactor) {
    const ForgeRun run = transcribe(quoted(kClip) + kCtc + " --format json --threads 1");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["text"], "r is");
    EXPECT_DOUBLE_EQ(j["duration"].get<double>(), 1.3);
    ASSERT_EQ(j["words"].size(), 2u);
    EXPECT_EQ(j["words"][1]["word"], "is");
    EXPECT_LE(j["words"][1]["start"].get<double>(), j["words"][1]["end"].get<double>());
    EXPECT_GT(j["real_time_factor"].get<double>(), 0.0);
}

TEST(TranscribeCli, SubtitlesInSrtAndVtt) {
    const ForgeRun srt = transcribe(quoted(kClip) + kCtc + " --format srt");
    ASSERT_EQ(srt.status, 0) << srt.err;
    EXPECT_THAT(srt.out, testing::MatchesRegex("1\n00:00:00,[0-9]{3} --> 00:00:0[01],[0-9]{3}\nr is\n\n"));
    const ForgeRun vtt = transcribe(quoted(kClip) + kCtc + " --format vtt");
    ASSERT_EQ(vtt.status, 0) << vtt.err;
    EXPECT_THAT(vtt.out, testing::StartsWith("WEBVTT\n\n00:00:00."));
}

// Several inputs are one valid document, the inputs one after another: one WEBVTT header,
// cues numbered across the inputs, the second clip's times after the first's 1.3 s (they were
// two documents run together: a second "WEBVTT" and a second cue 1).
TEST(TranscribeCli, SubtitlesOfSeveralInputsAreOneDocument) {
    const ForgeRun srt = transcribe(quoted(kClip) + " " + quoted(kClip) + kCtc + " --format srt");
    ASSERT_EQ(srt.status, 0) << srt.err;
    EXPECT_THAT(srt.out, testing::MatchesRegex("1\n00:00:00,[0-9]{3} --> 00:00:0[01],[0-9]{3}\nr is\n\n"
                                               "2\n00:00:01,[3-9][0-9]{2} --> 00:00:0[12],[0-9]{3}\nr is\n\n"));
    const ForgeRun vtt = transcribe(quoted(kClip) + " " + quoted(kClip) + kCtc + " --format vtt");
    ASSERT_EQ(vtt.status, 0) << vtt.err;
    EXPECT_THAT(vtt.out, testing::MatchesRegex("WEBVTT\n\n00:00:00.[0-9]{3} --> 00:00:0[01].[0-9]{3}\nr is\n\n"
                                               "00:00:01.[3-9][0-9]{2} --> 00:00:0[12].[0-9]{3}\nr is\n\n"));
}

TEST(TranscribeCli, WavOnStdinAndOtherRatesAndChannels) {
    std::ifstream in(kClip, std::ios::binary);
    std::stringstream wav;
    wav << in.rdbuf();
    const ForgeRun piped = transcribe("-" + kCtc, wav.str());
    ASSERT_EQ(piped.status, 0) << piped.err;
    EXPECT_EQ(piped.out, "r is\n");
    // Stereo at 44.1 kHz: averaged and resampled to the model's 16 kHz; it runs and prints a line.
    audio::Audio stereo;
    stereo.sample_rate = 44100;
    stereo.channels = 2;
    const auto mono = audio::read_audio(kClip).samples;
    for (std::size_t i = 0; i < mono.size() * 44100 / 16000; ++i) {
        const float v = mono[i * 16000 / 44100];
        stereo.samples.insert(stereo.samples.end(), {v, v});
    }
    const std::string path = ::testing::TempDir() + "/forge_stereo_" + std::to_string(::getpid()) + ".wav";
    audio::write_audio(path, stereo);
    const ForgeRun run = transcribe(quoted(path) + kCtc);
    std::remove(path.c_str());
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_THAT(run.out, testing::EndsWith("\n"));
}

TEST(TranscribeCli, TransducerModelAndDecoderChoice) {
    const std::string tdt = " --model " + quoted(kDir + "tdt_ctc.gguf");
    const ForgeRun ctc = transcribe(quoted(kClip) + tdt + " --decoder ctc");
    ASSERT_EQ(ctc.status, 0) << ctc.err;
    EXPECT_EQ(ctc.out, "cat\n");  // the oracle's hybrid CTC tokens: [9], "▁cat"
    const ForgeRun auto_run = transcribe(quoted(kClip) + tdt + " --max-symbols 3");
    ASSERT_EQ(auto_run.status, 0) << auto_run.err;
    EXPECT_FALSE(auto_run.out.empty());
}

TEST(TranscribeCli, BadInputIsAnError) {
    const ForgeRun missing = transcribe("no-such.wav" + kCtc);
    EXPECT_EQ(missing.status, 1);
    EXPECT_THAT(missing.err, HasSubstr("no-such.wav"));
    const ForgeRun model = transcribe(quoted(kClip) + " --model no-such.gguf");
    EXPECT_EQ(model.status, 1);
    EXPECT_THAT(model.err, HasSubstr("no-such.gguf"));
    const ForgeRun not_audio = transcribe("-" + kCtc, "this is not a wav file");
    EXPECT_EQ(not_audio.status, 1);
    EXPECT_THAT(not_audio.err, HasSubstr("stdin"));
    const ForgeRun format = transcribe(quoted(kClip) + kCtc + " --format xml");
    EXPECT_EQ(format.status, 2);
    const ForgeRun decoder = transcribe(quoted(kClip) + " --model " + quoted(kDir + "rnnt.gguf") + " --decoder ctc");
    EXPECT_EQ(decoder.status, 1);
    EXPECT_THAT(decoder.err, HasSubstr("no CTC head"));
}

// Without --model (and with --model default) forge transcribes with its bundled model
// (models/asr/bundled/forge-asr.gguf, MODEL_CARD.md there). Its transcripts of the five real
// LibriVox clips of Debian pocketsphinx-testdata are those of the PyTorch reference of the same
// equations (tools/make_bundled_asr_golden.py -> test/data/asr/bundled_librivox_golden.json):
// greedy tokens, so exact.
TEST(TranscribeCli, TheBundledModelTranscribesRealSpeechLikeThePyTorchReference) {
    std::ifstream in(kDir + "bundled_librivox_golden.json");
    const auto golden = nlohmann::json::parse(in);
    std::string clips, expected;
    for (const auto& clip : golden["clips"]) {
        const std::string path = kLibriVox + clip["clip"].get<std::string>() + ".wav";
        clips += ' ';
        clips += quoted(path);
        expected += clip["transcript"].get<std::string>() + "\n";
    }
    ASSERT_EQ(golden["clips"].size(), 5u);
    for (const std::string& model : {std::string(), std::string(" --model default")}) {
        const ForgeRun run = transcribe(clips + model + " --threads 2");
        ASSERT_EQ(run.status, 0) << run.err;
        EXPECT_EQ(run.out, expected) << model;
        EXPECT_THAT(run.err, HasSubstr("forge-asr.gguf (the bundled default)")) << model;
    }
}

// The vocabulary is text from a file: a piece carrying an OSC (the window title) and a
// clear-screen reached the terminal raw. On a terminal — script(1)'s pseudo-terminal here — the
// transcript is escaped, as a chat answer is; a pipe gets it exactly.
TEST(TranscribeCli, VocabularyPiecesCannotSendEscapeSequencesToATerminal) {
    if (std::system("command -v script > /dev/null") != 0) GTEST_SKIP() << "no script(1) for a pseudo-terminal";
    const std::string evil = "\x1b]0;pwned\x07\x1b[2J";
    const gguf::GgufFile ctc = gguf::GgufFile::open(kDir + "ctc.gguf");
    gguf::Array pieces = *ctc.find("parakeet.tokenizer.pieces")->array();
    pieces.items[6] = gguf::Value(*pieces.items[6].string() + evil);  // "r" in the clip's transcript
    gguf::GgufWriter writer = gguf::GgufWriter::copy_of(ctc);
    writer.set("parakeet.tokenizer.pieces", gguf::Value(pieces));
    const std::string base = ::testing::TempDir() + "/forge_escape_" + std::to_string(::getpid());
    writer.write(base + ".gguf");

    const ForgeRun piped = transcribe(quoted(kClip) + " --model " + quoted(base + ".gguf"));
    EXPECT_EQ(piped.status, 0) << piped.err;
    EXPECT_EQ(piped.out, "r" + evil + " is\n");

    const std::string command = std::string(FORGE_EXE) + " transcribe " + quoted(kClip) + " --model " +
                                quoted(base + ".gguf") + " 2> /dev/null";
    const std::string script = "script -qec " + quoted(command) + " " + quoted(base + ".tty") + " > /dev/null 2>&1";
    EXPECT_EQ(std::system(script.c_str()), 0);
    const std::string shown = test::read_file(base + ".tty");
    EXPECT_EQ(shown.find('\x1b'), std::string::npos) << shown;
    EXPECT_THAT(shown, HasSubstr("r\\x1b]0;pwned\\x07\\x1b[2J is"));
    for (const char* suffix : {".gguf", ".tty"}) std::remove((base + suffix).c_str());
}

TEST(BenchTranscribeCli, ReportsTheRealTimeFactor) {
    const ForgeRun run = test::run_forge("bench transcribe " + quoted(kDir + "ctc.gguf") + " --seconds 2 --reps 1 --json");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_DOUBLE_EQ(j["audio_seconds"].get<double>(), 2.0);
    EXPECT_GT(j["real_time_factor"].get<double>(), 0.0);
}

}  // namespace
}  // namespace forge
