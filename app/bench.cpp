// The `bench` subcommand group: one sub-subcommand per benchmark.
#include "app/bench.h"

namespace forge::app {

void add_bench_command(CLI::App& forge, CommandTable& commands) {
    CLI::App* bench = forge.add_subcommand("bench", "Measure the speed of forge on this machine");
    bench->require_subcommand(1);
    add_bench_grammar_command(*bench, commands);
    add_bench_llm_command(*bench, commands);
    add_bench_ops_command(*bench, commands);
    add_bench_quant_command(*bench, commands);
    add_bench_run_commands(*bench, commands);
    add_bench_train_command(*bench, commands);
    add_bench_transcribe_command(*bench, commands);
}

}  // namespace forge::app
