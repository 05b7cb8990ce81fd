// Running the built forge binary from a test, as a user runs it from a shell: arguments,
// environment variables and stdin in; exit status, stdout and stderr out. FORGE_EXE (the
// binary's path) comes from the test's meson definition.
#pragma once

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

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

// Starts `args` (argv[0] a path) in the background with stdout to /dev/null and stderr to
// `stderr_path`; returns its pid, for tests that kill or time a run.
inline pid_t spawn_process(const std::vector<std::string>& args, const std::string& stderr_path = "/dev/null") {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
}

}  // namespace forge::test
