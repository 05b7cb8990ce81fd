// `forge bench ...`: the benchmark group. Each benchmark is a sub-subcommand in a file of
// its own (bench_ops.cpp, ...) that adds itself under the group with add_bench_*_command.
#pragma once

#include "app/commands.h"

namespace forge::app {

void add_bench_grammar_command(CLI::App& bench, CommandTable& commands);
void add_bench_llm_command(CLI::App& bench, CommandTable& commands);
void add_bench_ops_command(CLI::App& bench, CommandTable& commands);
void add_bench_quant_command(CLI::App& bench, CommandTable& commands);
// `forge bench run` and `forge bench compare` (bench_run.cpp).
void add_bench_run_commands(CLI::App& bench, CommandTable& commands);
void add_bench_train_command(CLI::App& bench, CommandTable& commands);
void add_bench_transcribe_command(CLI::App& bench, CommandTable& commands);

}  // namespace forge::app
