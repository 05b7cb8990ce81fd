// What the trainers with a run folder (`forge train gpt|sft|asr|lora --out DIR`) share beyond their
// flags: a finished run is not trained over by accident, and a run whose length no flag set
// says how long it will be before it starts, and Ctrl-C stops a run with a checkpoint to resume.
#pragma once

#include "app/signal_flag.h"
#include "core/error.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <string_view>

namespace forge::app {

// --force of a trainer with a run folder.
inline void add_force_flag(CLI::App& command, bool& force) {
    command.add_flag("--force", force,
                     "Start a new run in --out over a finished one (its model.gguf, checkpoint and log are replaced)");
}

// Refuses a new run in `out` when a finished one is there (DIR/model.gguf, or what the run
// writes last: `train lora`'s adapter.gguf): --resume continues it, --force replaces it.
// Called before any work, so nothing of the old run is touched.
inline void check_not_finished(const std::filesystem::path& out, bool resume, bool force,
                               std::string_view product = "model.gguf") {
    if (resume || force) return;
    std::error_code error;
    if (std::filesystem::exists(out / product, error))
        fail("{}: a finished run is there ({}): --resume continues it, --force trains a new one over it, or choose "
             "another --out",
             out.string(), (out / product).string());
}

// Ctrl-C while a trainer runs: the first asks it (through its stop_requested, polled after
// each step) to stop with a checkpoint; a second ends forge at once, as Ctrl-C did before.
class CtrlCStopsTraining {
public:
    bool requested() { return flag_.take(); }

private:
    SignalFlag flag_{SIGINT, SignalFlag::Again::default_action};
};

// What an interrupted run prints instead of its summary (exit status 0: the run is saved).
inline void print_interrupted(std::string_view command, std::int64_t step, const std::filesystem::path& out) {
    fmt::print("interrupted at step {}; checkpoint written to {}\n"
               "continue with: forge {} ... --out {} --resume (the same flags)\n",
               step, out.string(), command, out.string());
}

}  // namespace forge::app
