// forge: one executable, one subcommand per job. This file sets up what every subcommand
// shares (logging, threads, --version) and turns errors into one message and an exit code.
#include "app/cli_checks.h"
#include "app/command_suggestion.h"
#include "app/commands.h"
#include "app/help_format.h"
#include "core/distributed/world.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <ctime>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void print_version() {
    fmt::print("forge {}\nbackend: {}\ninstruction set: {}\ndefault threads: {}\n", FORGE_VERSION,
               forge::kernels::kBackendName, forge::kernels::instruction_set(),
               forge::ThreadPool::default_threads());
}

// The subcommand the user was typing (deepest one named on the command line), for the hint.
std::string command_path(CLI::App& root) {
    std::string path = "forge";
    for (CLI::App* level = &root;;) {
        const auto selected = level->get_subcommands();
        if (selected.empty()) return path;
        level = selected.front();
        path += " " + level->get_name();
    }
}

// Exit codes (README "Exit codes"): 0 success, 1 an error while running, 2 a usage error.
int usage_error(CLI::App& root, const std::string& message) {
    fmt::print(stderr, "forge: error: {}\nRun '{} --help' for usage.\n", forge::app::printable(message), command_path(root));
    return 2;
}

// A log line's message through printable(): logs carry names from files (tensor names, paths,
// metadata), and a name must not send the terminal escape sequences.
class PrintableMessage : public spdlog::custom_flag_formatter {
public:
    void format(const spdlog::details::log_msg& message, const std::tm&, spdlog::memory_buf_t& out) override {
        const std::string text = forge::app::printable({message.payload.data(), message.payload.size()});
        out.append(text.data(), text.data() + text.size());
    }
    std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<PrintableMessage>(); }
};

void configure_logging(bool verbose, bool quiet) {
    // Logs go to stderr so that stdout stays clean for results (ids, JSON, audio paths).
    auto logger = spdlog::stderr_color_mt("forge");
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<PrintableMessage>('*').set_pattern("%^[%l]%$ %*");
    logger->set_formatter(std::move(formatter));
    spdlog::set_default_logger(logger);
    spdlog::set_level(quiet ? spdlog::level::warn : verbose ? spdlog::level::debug : spdlog::level::info);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App forge{"forge: a deep-learning stack in one C++ program"};
    forge.require_subcommand(0, 1);
    forge.set_help_all_flag("--help-all", "Show help for every subcommand");
    // Global options may also follow the subcommand (`forge chat M.gguf --threads 2`): an option
    // a subcommand does not know falls through to its parents. Set before the subcommands are
    // added, which inherit it; a subcommand's own option of the same name still wins there.
    forge.fallthrough();
    // How --help shows options (app/help_format.h); subcommands added below inherit it.
    forge.formatter(std::make_shared<forge::app::HelpFormatter>());

    bool show_version = false;
    bool verbose = false;
    bool quiet = false;
    int threads = 0;
    forge.add_flag("--version", show_version, "Print version, backend, instruction set and thread count");
    forge.add_flag("-v,--verbose", verbose, "Log more detail");
    forge.add_flag("--quiet", quiet, "Log only warnings and errors");
    forge.add_option("--threads", threads, "Worker threads (default: FORGE_THREADS, else all cores, shared among the MPI ranks on this machine)")
        ->envname("FORGE_THREADS")
        ->check(CLI::Range(1, forge::ThreadPool::kMaxThreads));

    forge::app::CommandTable commands;
    forge::app::add_bench_command(forge, commands);
    forge::app::add_chat_command(forge, commands);
    forge::app::add_embed_command(forge, commands);
    forge::app::add_gguf_command(forge, commands);
    forge::app::add_logits_command(forge, commands);
    forge::app::add_lora_command(forge, commands);
    forge::app::add_nam_command(forge, commands);
    forge::app::add_quantize_command(forge, commands);
    forge::app::add_serve_command(forge, commands);
    forge::app::add_tokenize_command(forge, commands);
    forge::app::add_train_command(forge, commands);
    forge::app::add_transcribe_command(forge, commands);

    // Spellings CLI11 cannot declare, rewritten before parsing (serve's -np).
    std::vector<std::string> args = forge::app::serve_flag_spellings(argc, argv);
    std::vector<char*> arg_pointers;
    for (std::string& arg : args) arg_pointers.push_back(arg.data());
    try {
        forge.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return forge.exit(e);  // --help, --help-all: print and succeed
        // A misspelt command surfaces as "not expected" (forge chta) or "a subcommand is
        // required" (forge train gtp): say which word, and what it was probably meant to be.
        const std::span<const std::string> words(args.begin() + 1, args.end());
        if (const auto misspelt = forge::app::misspelt_command(forge, words)) return usage_error(forge, *misspelt);
        return usage_error(forge, e.what());
    }

    try {
        configure_logging(verbose, quiet);
        // Several ranks of an MPI job on one machine share its cores instead of each taking all.
        if (threads == 0) threads = forge::distributed::threads_per_local_rank();
        if (threads > 0) forge::ThreadPool::set_global_threads(threads);
        if (show_version) {
            print_version();
            return 0;
        }
        const int status = commands.run_selected(forge);
        if (status < 0) {
            fmt::print("{}", forge.help());
            return 0;
        }
        return status;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "forge: error: out of memory\n");
        return 1;
    } catch (const std::length_error&) {  // a size past what a container can hold
        fmt::print(stderr, "forge: error: out of memory (a size too large to allocate)\n");
        return 1;
    } catch (const std::exception& e) {
        fmt::print(stderr, "forge: error: {}\n", forge::app::printable(e.what()));
        return 1;
    }
}
