// Helpers of the hostile-input suite: files written byte for byte, the forge binary run as a
// user would run it, and the bounds every run must keep (time, peak memory, inputs intact).
#pragma once

#include "test/app/forge_binary.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace forge::test {

namespace fs = std::filesystem;

// A fresh folder per test process (two builds may run the suite at once).
inline fs::path scratch_dir() {
    static const fs::path dir = [] {
        const fs::path d = fs::temp_directory_path() / ("forge_robustness_" + std::to_string(::getpid()));
        fs::create_directories(d);
        return d;
    }();
    return dir;
}

inline fs::path write_file(const std::string& name, const std::string& bytes) {
    const fs::path path = scratch_dir() / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

// The largest resident set of any child process waited for so far, in MiB. Each forge run
// in this suite is checked right after it ends, so a run over the bound is caught by its
// own check.
inline double peak_child_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// A field of /proc/self/status in MiB ("VmRSS", "VmHWM": lines like "VmHWM:   12345 kB").
inline double proc_status_mib(const std::string& field) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) / 1024.0;
    }
    ADD_FAILURE() << "no " << field << " in /proc/self/status";
    return 0;
}

// How far this process's peak resident set rose above its resident set while `work` ran, in
// MiB. The peak is reset first (Linux: 5 written to /proc/self/clear_refs), so what earlier
// tests of the process held — much more under AddressSanitizer, whose quarantine keeps freed
// memory — does not count.
inline double peak_rss_growth_mib(const std::function<void()>& work) {
    std::ofstream("/proc/self/clear_refs") << "5";
    const double before = proc_status_mib("VmRSS");
    work();
    return proc_status_mib("VmHWM") - before;
}

// What every run of forge on hostile input must keep to: no crash (a signal gives -1), a
// bounded time and peak memory. The bounds are far above a well-behaved run (under 1 s and
// 100 MiB here, also in sanitized builds) and far below what the bugs cost (minutes, GiBs).
inline constexpr double kMaxSeconds = 60.0;
inline constexpr double kMaxRssMib = 1024.0;

struct BoundedRun {
    ForgeRun run;
    double seconds = 0;
};

inline BoundedRun run_bounded(const std::string& args, const std::string& input = "") {
    const auto start = std::chrono::steady_clock::now();
    BoundedRun r{run_forge(args, input), 0};
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(r.seconds, kMaxSeconds) << args;
    EXPECT_LT(peak_child_rss_mib(), kMaxRssMib) << args;
    return r;
}

// The line of stderr that starts with "forge: error: " (log lines may come before it).
inline std::string error_line(const std::string& err) {
    const std::size_t at = err.rfind("forge: error: ");
    if (at == std::string::npos || (at > 0 && err[at - 1] != '\n')) return "";
    return err.substr(at, err.find('\n', at) - at);
}

// The run failed as forge's errors do: exit 1, a "forge: error:" line naming `what`.
inline void expect_error(const BoundedRun& r, const std::string& what) {
    EXPECT_EQ(r.run.status, 1) << r.run.err;
    EXPECT_NE(error_line(r.run.err).find(what), std::string::npos) << "expected \"" << what << "\" in: " << r.run.err;
}

// A usage error: exit 2, "forge: error:" and a hint to --help.
inline void expect_usage_error(const BoundedRun& r, const std::string& what) {
    EXPECT_EQ(r.run.status, 2) << r.run.err;
    EXPECT_NE(error_line(r.run.err).find(what), std::string::npos) << "expected \"" << what << "\" in: " << r.run.err;
    EXPECT_NE(r.run.err.find("--help"), std::string::npos) << r.run.err;
}

}  // namespace forge::test
