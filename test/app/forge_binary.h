// Running the built forge binary from a test, as a user runs it from a shell: arguments,
// environment variables and stdin in; exit status, stdout and stderr out. FORGE_EXE (the
// binary's path) comes from the test's meson definition.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace forge::test {

struct ForgeRun {
    int status = -1;
    std::string out, err;
};

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// `text` quoted for /bin/sh.
inline std::string quoted(const std::string& text) {
    std::string q = "'";
    for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// forge with `args` (quoted already), `input` on stdin and `env` (VAR=value ...) prepended;
// stdout and stderr captured separately.
inline ForgeRun run_forge(const std::string& args, const std::string& input = "", const std::string& env = "") {
    // Named by process: another build's copy of the same test may run at the same time.
    const std::string base = ::testing::TempDir() + "/forge_" + std::to_string(::getpid());
    const std::string in = base + "_stdin.txt", out = base + "_stdout.txt", err = base + "_stderr.txt";
    std::ofstream(in, std::ios::binary) << input;
    const std::string command =
        env + " " + FORGE_EXE + " " + args + " <" + quoted(in) + " >" + quoted(out) + " 2>" + quoted(err);
    ForgeRun run;
    const int raw = std::system(command.c_str());
    run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    run.out = read_file(out);
    run.err = read_file(err);
    for (const std::string& path : {in, out, err}) std::remove(path.c_str());
    return run;
}

}  // namespace forge::test
