// `forge train gpt --data FILE... --tokenizer TOK.gguf [--depth D] [--seq-len T] [--batch B]
// [--steps N | --tokens N] [--seed S] [--precision f32|bf16] [--out DIR] [--resume] [--json]`: pretrain a GPT from
// scratch (models/gpt/) and export DIR/model.gguf for llama.cpp and `forge chat`. Under
// `mpirun -np P` the P processes train one model data-parallel (core/distributed/).
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/data_parallel.h"
#include "app/train_progress.h"
#include "app/training_run.h"
#include "models/gpt/trainer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <vector>

namespace forge::app {
namespace {

struct GptCli {
    gpt::TrainConfig config;
    std::vector<std::string> data;
    std::string tokenizer, out = "gpt-run";
    std::string precision;  // --precision, when given
    bool json = false;
    bool force = false;
    bool length_given = false;  // --steps or --tokens
};

int train_and_print(GptCli& cli, distributed::Communicator& world) {
    for (const auto& d : cli.data) cli.config.data.emplace_back(d);
    cli.config.tokenizer = cli.tokenizer;
    cli.config.out_dir = cli.out;
    if (!cli.precision.empty()) cli.config.precision = matmul_precision_named(cli.precision);
    if (world.size() > 1 && world.is_root()) spdlog::info("data parallel: {}", world.describe());
    if (!cli.length_given && world.is_root())
        spdlog::info("train gpt: 20 tokens per parameter (the default length; --steps N or --tokens N sets it)");
    CtrlCStopsTraining ctrl_c;
    cli.config.stop_requested = [&] { return ctrl_c.requested(); };
    TrainProgress progress;
    const gpt::TrainResult r = gpt::train_gpt(cli.config, [&](const gpt::StepReport& s) { progress(s); }, world);
    if (!world.is_root()) return 0;  // rank 0 speaks for the job
    if (r.interrupted && cli.json) {
        fmt::print("{}\n", nlohmann::json{{"interrupted", true}, {"steps", r.steps}, {"out", cli.out}}.dump());
    } else if (r.interrupted) {
        print_interrupted("train gpt", r.steps, cli.out);
    } else if (cli.json) {
        const nlohmann::json out = {{"val_bpb", r.val_bpb},   {"loss", r.loss},
                                    {"tokens", r.tokens},     {"tokens_per_s", r.tokens_per_s},
                                    {"steps", r.steps},       {"parameters", r.parameters},
                                    {"seconds", r.seconds},   {"model", r.model.string()}};
        fmt::print("{}\n", out.dump());
    } else {
        fmt::print("trained {} parameters for {} steps ({} tokens, {:.0f} tok/s): loss {:.4f}, val {:.4f} bits/byte\n"
                   "wrote {}\n",
                   r.parameters, r.steps, r.tokens, r.tokens_per_s, r.loss, r.val_bpb, r.model.string());
    }
    return 0;
}

// The flags that must agree with each other, checked once all are parsed.
void check_flag_combinations(const gpt::TrainConfig& c) {
    check_micro_batch(c);
    const std::int64_t width = gpt::GptConfig{.depth = c.depth}.width();
    if (c.head_dim > 0 && width % c.head_dim != 0)
        throw CLI::ValidationError("--head-dim", fmt::format("{} does not divide the width {} (64 x --depth {})",
                                                             c.head_dim, width, c.depth));
}

int run_train_gpt(GptCli& cli) {
    check_not_finished(cli.out, cli.config.resume, cli.force);
    return run_data_parallel([&](distributed::Communicator& world) { return train_and_print(cli, world); });
}

}  // namespace

void add_train_gpt_command(CLI::App& train, CommandTable& commands) {
    auto cli = std::make_shared<GptCli>();
    auto& c = cli->config;
    CLI::App* gpt = train.add_subcommand("gpt", "Pretrain a GPT on text files and export a GGUF (qwen3) model");
    gpt->add_option("--data", cli->data, "Text files; blank lines separate documents")->required()->check(input_file());
    gpt->add_option("--tokenizer", cli->tokenizer, "GGUF with tokenizer.ggml.* keys (its vocabulary and BOS)")
        ->required()->check(input_file());
    gpt->add_option("--out", cli->out, "Run folder: checkpoint, log.jsonl, model.gguf")
        ->capture_default_str()->check(folder_path());
    gpt->add_option("--depth", c.depth, "Transformer blocks (width = 64 x depth)")
        ->capture_default_str()->check(CLI::Range(std::int64_t{1}, gpt::kMaxDepth));
    gpt->add_option("--head-dim", c.head_dim, "64 or 128 (default: 128 when it divides the width)")
        ->check(CLI::IsMember({std::int64_t{64}, std::int64_t{128}}));
    gpt->add_option("--seq-len", c.seq_len, "Tokens per row")
        ->capture_default_str()->check(CLI::Range(std::int64_t{2}, gpt::kMaxContext));
    add_batch_options(*gpt, c);
    auto* steps = gpt->add_option("--steps", c.steps, "Optimizer steps")->check(CLI::Range(std::int64_t{1}, kMaxTrainingSteps));
    auto* tokens = gpt->add_option("--tokens", c.tokens, "Training tokens (default: 20 per parameter)")
        ->excludes(steps)->check(CLI::Range(std::int64_t{1}, gpt::kMaxTokens));
    gpt->add_option("--eval-tokens", c.eval_tokens, "Validation tokens per evaluation")
        ->capture_default_str()->check(CLI::Range(std::int64_t{1}, gpt::kMaxTokens));
    gpt->add_option("--sample-prompt", c.sample_prompt, "Text the greedy samples continue")->capture_default_str();
    add_run_options(*gpt, c);
    gpt->add_option("--precision", cli->precision,
                    "Matrix products while training: f32, or bf16 operands with f32 sums (weights, optimizer, norms, "
                    "softmax and loss stay f32). Default f32; --resume keeps the checkpoint's")
        ->check(CLI::IsMember({"f32", "bf16"}));
    gpt->add_flag("--json", cli->json, "Print one JSON object: val_bpb, loss, tokens, tokens_per_s, model");
    add_force_flag(*gpt, cli->force);
    gpt->callback([cli, steps, tokens] {
        check_flag_combinations(cli->config);
        cli->length_given = steps->count() + tokens->count() > 0;
    });
    commands.add(gpt, [cli] { return run_train_gpt(*cli); });
}

}  // namespace forge::app
