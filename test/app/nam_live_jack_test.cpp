// `forge nam live` on a real audio server: JACK (Debian's jackd2) with its dummy driver at
// 48 kHz, 64-frame periods, a private server name, no sound card. jack_metro (a JACK client
// from jackd2) plays a click track into forge's input; forge plays the bundled model for 10 s
// with --record. Checked: the run ends by itself with exit 0, zero xruns (whenever the server
// itself kept time, below), the callback's CPU load and the latency are reported, and the
// recorded wet signal is `forge nam run` of the recorded dry signal. The two are recorded in
// the same callback, so they are already aligned sample for sample (the reported latency lies
// between the input jack and forge's input, before the dry recording): no shift is needed.
//
// Every process is started with a deadline and killed at the end, jackd last, so the test
// cannot hang or leave a server behind. Skipped, with the reason, where jackd is not
// installed (tools/bootstrap.sh installs it).
#include "core/audio/audio_file.h"
#include "test/app/forge_binary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>

namespace forge {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The absolute path of `program` on PATH, or "" (posix_spawn needs a path).
std::string find_program(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (std::size_t at = 0; at <= dirs.size();) {
        const std::size_t end = std::min(dirs.find(':', at), dirs.size());
        const fs::path candidate = fs::path(dirs.substr(at, end - at)) / program;
        if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
        at = end + 1;
    }
    return "";
}

// A child process that is always reaped: on destruction SIGTERM, then SIGKILL after 3 s.
class Child {
public:
    Child(const std::vector<std::string>& args, const std::string& stderr_path = "/dev/null")
        : pid_(test::spawn_process(args, stderr_path)) {}
    ~Child() { stop(); }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;

    // The exit status once the process ends within `timeout`; -1 when it did not (then killed).
    int wait_for(std::chrono::seconds timeout) {
        const auto deadline = Clock::now() + timeout;
        while (pid_ > 0 && Clock::now() < deadline) {
            int status = 0;
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        stop();
        return -1;
    }

    void stop() {
        if (pid_ <= 0) return;
        kill(pid_, SIGTERM);
        for (int i = 0; i < 60 && waitpid(pid_, nullptr, WNOHANG) != pid_; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (kill(pid_, 0) == 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        pid_ = -1;
    }

private:
    pid_t pid_;
};

// A shell command's stdout, with a deadline (`timeout` from coreutils).
std::string output_of(const std::string& command) {
    std::string out;
    if (FILE* pipe = popen(("timeout 10 " + command + " 2>/dev/null").c_str(), "r")) {
        char buffer[4096];
        for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
        pclose(pipe);
    }
    return out;
}

// The first port in jack_lsp's list whose name matches `pattern`, waiting up to 15 s for it.
std::string wait_for_port(const std::string& pattern) {
    const std::regex re(pattern);
    for (const auto deadline = Clock::now() + std::chrono::seconds(15); Clock::now() < deadline;) {
        const std::string ports = output_of("jack_lsp");
        for (std::size_t at = 0; at < ports.size();) {
            const std::size_t end = std::min(ports.find('\n', at), ports.size());
            const std::string port = ports.substr(at, end - at);
            if (std::regex_search(port, re)) return port;
            at = end + 1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return "";
}

TEST(NamLiveJack, PlaysTheModelOnAJackServerWithoutXruns) {
    const std::string jackd = find_program("jackd"), metro = find_program("jack_metro");
    if (jackd.empty() || metro.empty() || find_program("jack_lsp").empty() || find_program("jack_connect").empty())
        GTEST_SKIP() << "jackd and its tools are not installed (Debian's jackd2; tools/bootstrap.sh installs it)";

    const fs::path dir = fs::path(::testing::TempDir()) / ("forge_nam_live_" + std::to_string(getpid()));
    fs::create_directories(dir);
    // A private server: never the user's, never another test's.
    const std::string server = "forge_live_test_" + std::to_string(getpid());
    setenv("JACK_DEFAULT_SERVER", server.c_str(), 1);
    setenv("JACK_NO_START_SERVER", "1", 1);

    Child server_process({jackd, "-d", "dummy", "-r", "48000", "-p", "64"}, (dir / "jackd.log").string());
    ASSERT_EQ(std::system("timeout 10 jack_wait -w >/dev/null 2>&1"), 0) << test::read_file(dir / "jackd.log");

    Child click({metro, "-n", "metro", "-b", "200", "-f", "220", "-A", "0.7", "-D", "150"});
    const std::string click_port = wait_for_port("^metro:");
    ASSERT_FALSE(click_port.empty()) << "jack_metro did not register its port";

    const fs::path dry = dir / "dry.wav", wet = dir / "wet.wav", log = dir / "forge.log";
    const std::size_t server_log_before = test::read_file(dir / "jackd.log").size();
    Child forge({FORGE_EXE, "nam", "live", "default", "--input", "system", "--output", "system", "--seconds", "10",
                 "--record", dry.string(), wet.string()},
                log.string());
    const std::string forge_input = wait_for_port("^PortAudio.*:in");
    ASSERT_FALSE(forge_input.empty()) << test::read_file(log);
    ASSERT_EQ(std::system(("timeout 10 jack_connect " + test::quoted(click_port) + " " + test::quoted(forge_input)).c_str()),
              0);

    const int status = forge.wait_for(std::chrono::seconds(60));
    const std::string err = test::read_file(log);
    ASSERT_EQ(status, 0) << err;
    // The dummy driver is a timer: on an overloaded machine the server itself runs late and
    // logs xruns that no client can avoid (seen on a 2-vCPU VM at load 16, jack_metro alone).
    // Zero xruns is required whenever the server logged none while forge ran; otherwise the
    // figure must be there and the test says why it could not require zero.
    const std::string server_log = test::read_file(dir / "jackd.log").substr(server_log_before);
    std::smatch xruns;
    ASSERT_TRUE(std::regex_search(err, xruns, std::regex(R"(; xruns ([0-9]+);)"))) << err;
    if (server_log.find("XRun") == std::string::npos)
        EXPECT_EQ(xruns[1], "0") << "xruns in forge while the JACK server had none:\n" << err;
    else
        std::fprintf(stderr, "note: the JACK server itself logged xruns while forge ran (machine overloaded), so zero "
                             "xruns cannot be required; forge reported %s\n%s", xruns[1].str().c_str(), server_log.c_str());
    std::smatch load;
    ASSERT_TRUE(std::regex_search(err, load, std::regex(R"(callback CPU load ([0-9.]+)% mean)"))) << err;
    EXPECT_GT(std::stod(load[1]), 0.0);
    EXPECT_LT(std::stod(load[1]), 100.0);
    EXPECT_TRUE(std::regex_search(err, std::regex(R"(latency [0-9.]+ ms \(input)"))) << err;

    const audio::Audio d = audio::read_audio(dry), w = audio::read_audio(wet);
    ASSERT_EQ(d.sample_rate, 48000);
    ASSERT_EQ(d.samples.size(), w.samples.size());
    EXPECT_GE(d.samples.size(), 480000u);
    float dry_peak = 0;
    for (float x : d.samples) dry_peak = std::max(dry_peak, std::abs(x));
    EXPECT_GT(dry_peak, 0.5f) << "the click track did not reach forge's input";

    const fs::path offline = dir / "offline.wav";
    const test::ForgeRun run = test::run_forge("nam run default " + dry.string() + " " + offline.string());
    ASSERT_EQ(run.status, 0) << run.err;
    const audio::Audio o = audio::read_audio(offline);
    ASSERT_EQ(o.samples.size(), w.samples.size());
    double worst = 0, peak = 0;
    for (std::size_t i = 0; i < o.samples.size(); ++i) {
        worst = std::max(worst, static_cast<double>(std::abs(o.samples[i] - w.samples[i])));
        peak = std::max(peak, static_cast<double>(std::abs(o.samples[i])));
    }
    // The nam parity bound (docs/NAM.md). Measured: 0 (the same engine, blocks and gains).
    std::fprintf(stderr, "wet vs forge nam run of dry: max |difference| %g, peak %g, %zu samples\n", worst, peak,
                 o.samples.size());
    EXPECT_LE(worst, 1e-5 * std::max(1.0, peak)) << "wet differs from forge nam run of dry";
    EXPECT_GT(peak, 0.01) << "the model's output is silent";

    click.stop();
    forge.stop();
    server_process.stop();
    fs::remove_all(dir);
}

}  // namespace
}  // namespace forge
