// The subcommands of the forge executable. Each lives in its own file in app/ and adds itself
// to the CLI with add_*_command; main.cpp calls every one of them once.
//
// A subcommand registers what it runs in the CommandTable instead of as a CLI11 callback, so
// that it runs after parsing, once logging and the thread pool are set up, inside main's
// error handling. Its input files are checked first (cli_checks.h input_file()).
#pragma once

#include "app/cli_checks.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace forge::app {

class CommandTable {
public:
    using Run = std::function<int()>;  // returns the process exit code

    void add(CLI::App* command, Run run) { commands_[command] = std::move(run); }

    // Run the most deeply nested subcommand the user chose. Returns -1 if none was chosen.
    int run_selected(CLI::App& root) const {
        CLI::App* chosen = nullptr;
        for (CLI::App* level = &root; level != nullptr;) {
            auto selected = level->get_subcommands();
            level = selected.empty() ? nullptr : selected.front();
            if (level != nullptr) chosen = level;
        }
        if (chosen == nullptr) return -1;
        const auto it = commands_.find(chosen);
        if (it == commands_.end()) return -1;
        check_input_files(*chosen);  // before the command does anything
        return it->second();
    }

private:
    std::map<CLI::App*, Run> commands_;
};

void add_bench_command(CLI::App& forge, CommandTable& commands);
void add_chat_command(CLI::App& forge, CommandTable& commands);
void add_embed_command(CLI::App& forge, CommandTable& commands);
void add_gguf_command(CLI::App& forge, CommandTable& commands);
void add_logits_command(CLI::App& forge, CommandTable& commands);
void add_lora_command(CLI::App& forge, CommandTable& commands);  // `forge lora merge`
void add_nam_command(CLI::App& forge, CommandTable& commands);
// Called by add_nam_command: `forge nam train | capture-signal | profile` and `forge nam-profile`.
void add_nam_train_commands(CLI::App& forge, CLI::App& nam, CommandTable& commands);
void add_quantize_command(CLI::App& forge, CommandTable& commands);
void add_serve_command(CLI::App& forge, CommandTable& commands);
// llama-server's `-np` (a two-letter short flag, which CLI11 cannot declare) as `--parallel`,
// for `forge serve`; every other argument unchanged.
std::vector<std::string> serve_flag_spellings(int argc, char** argv);
void add_tokenize_command(CLI::App& forge, CommandTable& commands);
void add_train_command(CLI::App& forge, CommandTable& commands);
void add_transcribe_command(CLI::App& forge, CommandTable& commands);
// Called by add_train_command: `forge train gpt`.
void add_train_gpt_command(CLI::App& train, CommandTable& commands);
// Called by add_train_command: `forge train asr`.
void add_train_asr_command(CLI::App& train, CommandTable& commands);
// Called by add_train_command: `forge train tokenizer`.
void add_train_tokenizer_command(CLI::App& train, CommandTable& commands);

}  // namespace forge::app
