// Where forge writes, under hostile use: a symbolic link planted where a writer puts its
// temporary file, an output that is itself a link (to another file, to a process's stdout),
// and stdin read for `transcribe -` without any file. Each run must leave every file it
// was not asked to write as it was, and no temporary file behind.
#include "core/audio/audio_file.h"
#include "test/robustness/hostile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <csignal>
#include <string>
#include <thread>
#include <vector>

namespace forge::test {
namespace {

using ::testing::HasSubstr;

const std::string kModel = std::string(FORGE_LLM_TEST_DATA) + "/qwen3-f32.gguf";
const std::string kAsrDir = std::string(FORGE_TEST_DATA_DIR) + "/asr/";

// A folder of its own per test, emptied first: the planted links must not outlive it.
fs::path fresh_dir(const std::string& name) {
    const fs::path dir = scratch_dir() / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string bytes_of(const fs::path& path) { return read_file(path.string()); }

// One command for each way forge writes a file, each writing `out` in `dir`: GGUF
// (quantize, train tokenizer), raw bytes (logits), audio (nam run), JSON (.nam export). OUT is
// named .wav, the one name every writer takes (nam run writes .wav or .flac files only).
std::vector<std::string> writers(const fs::path& dir, const fs::path& out) {
    fs::copy_file(kModel, dir / "model.gguf", fs::copy_options::overwrite_existing);
    std::ofstream(dir / "corpus.txt") << "some text to train a tokenizer on\n";
    audio::Audio clip;
    clip.sample_rate = 48000;
    clip.samples.assign(4800, 0.25f);
    audio::write_audio(dir / "in.wav", clip);
    const std::string model = quoted(dir / "model.gguf"), o = quoted(out);
    return {"quantize " + model + " " + o + " Q8_0",
            "train tokenizer --data " + quoted(dir / "corpus.txt") + " --vocab-size 270 --out " + o,
            "logits " + model + " --tokens 1,2 --out " + o,
            "nam run default " + quoted(dir / "in.wav") + " " + o};
}

// A link planted at OUT.tmp used to be opened with O_TRUNC and written through: `train
// tokenizer --out out.gguf` replaced the file the link named. The temporary file is now
// created anew (O_EXCL | O_NOFOLLOW): the run fails, naming it, and the named file (or, for
// a dangling link, the absent one) stays as it was.
TEST(OutputFiles, ALinkPlantedAtTheTemporaryFileIsNotWrittenThrough) {
    const fs::path dir = fresh_dir("planted_tmp");
    const fs::path out = dir / "out.wav", victim = dir / "victim.txt", absent = dir / "absent.txt";
    std::ofstream(victim) << "precious";
    for (const std::string& command : writers(dir, out)) {
        for (const fs::path& target : {victim, absent}) {
            fs::remove(fs::path(out.string() + ".tmp"));
            fs::create_symlink(target, out.string() + ".tmp");
            expect_error(run_bounded(command), "out.wav.tmp: something that is not a regular file has its name");
            EXPECT_EQ(bytes_of(victim), "precious") << command;
            EXPECT_FALSE(fs::exists(absent)) << command;
            EXPECT_FALSE(fs::exists(out)) << command;
            EXPECT_TRUE(fs::is_symlink(out.string() + ".tmp")) << command;
        }
    }
}

// What a killed run left at OUT.tmp is an ordinary file: it is removed and the write goes on.
TEST(OutputFiles, AKilledRunsTemporaryFileIsReplaced) {
    const fs::path dir = fresh_dir("leftover_tmp");
    const fs::path out = dir / "out.wav";
    for (const std::string& command : writers(dir, out)) {
        std::ofstream(out.string() + ".tmp") << "half of an old write";
        const BoundedRun r = run_bounded(command);
        EXPECT_EQ(r.run.status, 0) << command << ": " << r.run.err;
        EXPECT_TRUE(fs::is_regular_file(out)) << command;
        EXPECT_FALSE(fs::exists(out.string() + ".tmp")) << command;
        fs::remove(out);
    }
}

// The rename that finishes a write replaced a symbolic link at the output with a plain file:
// OUT -> another file became a copy, and /dev/stdout (a link to /proc/self/fd/1) was replaced
// when forge ran as root. Both are refused before any work, the link left as it was.
TEST(OutputFiles, AnOutputThatIsASymbolicLinkIsRefused) {
    const fs::path dir = fresh_dir("output_link");
    const fs::path out = dir / "out.wav", real = dir / "real.bin";
    std::ofstream(real) << "the file the link names";
    for (const fs::path& target : {real, fs::path("/proc/self/fd/1")}) {
        for (const std::string& command : writers(dir, out)) {
            fs::remove(out);
            fs::create_symlink(target, out);
            expect_error(run_bounded(command), "out.wav: it is a symbolic link");
            EXPECT_TRUE(fs::is_symlink(out)) << command;
            EXPECT_EQ(fs::read_symlink(out), target) << command;
            EXPECT_EQ(bytes_of(real), "the file the link names") << command;
            EXPECT_FALSE(fs::exists(out.string() + ".tmp")) << command;
        }
    }
}

// /dev/stdout itself, with stdout a regular file (as in a shell's `> file`): refused, not
// replaced. (As root the old code replaced the link; do not run this test against it.)
TEST(OutputFiles, DevStdoutIsNotReplaced) {
    ASSERT_TRUE(fs::is_symlink("/dev/stdout"));
    expect_error(run_bounded("logits " + quoted(kModel) + " --tokens 1,2 --out /dev/stdout"),
                 "/dev/stdout: it is a symbolic link");
    EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
}

// `transcribe -` copied stdin to /tmp/forge-transcribe-PID.wav (a name anyone could plant a
// link at, left behind by an interrupt). stdin is now decoded in memory: with TMPDIR naming
// no folder it still works, and an interrupted run leaves nothing in TMPDIR.
TEST(OutputFiles, TranscribeReadsStdinWithoutATemporaryFile) {
    const std::string wav = bytes_of(kAsrDir + "chirps.wav");
    const std::string model = " --model " + quoted(kAsrDir + "ctc.gguf");
    const BoundedRun r = BoundedRun{run_forge("transcribe -" + model, wav, "TMPDIR=/no/such/folder"), 0};
    EXPECT_EQ(r.run.status, 0) << r.run.err;
    EXPECT_EQ(r.run.out, "r is\n");
    expect_error(BoundedRun{run_forge("transcribe - -" + model, wav), 0}, "'-' (stdin) can be given once");
    expect_error(BoundedRun{run_forge("transcribe -" + model, ""), 0}, "stdin: no audio");
}

// Interrupted while it reads stdin (a FIFO that this test keeps open), forge leaves nothing.
TEST(OutputFiles, AnInterruptedTranscribeLeavesNothingInTmpdir) {
    const fs::path dir = fresh_dir("interrupted_tmpdir");
    fs::create_directories(dir / "tmp");
    const fs::path fifo = dir / "stdin.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string command = "TMPDIR=" + quoted(dir / "tmp") + " exec " + FORGE_EXE + " transcribe - --model " +
                                quoted(kAsrDir + "ctc.gguf") + " < " + quoted(fifo);
    const pid_t pid = spawn_process({"/bin/sh", "-c", command});
    {
        std::ofstream writer(fifo, std::ios::binary);  // opens once forge's shell opens the other end
        writer << bytes_of(kAsrDir + "chirps.wav") << std::flush;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        ::kill(pid, SIGINT);
        int status = 0;
        for (int i = 0; i < 100 && ::waitpid(pid, &status, WNOHANG) == 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (::waitpid(pid, &status, WNOHANG) == 0) {  // SIGINT ignored where this test runs: end it anyway
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
        }
    }
    EXPECT_TRUE(fs::is_empty(dir / "tmp"));
}

}  // namespace
}  // namespace forge::test
