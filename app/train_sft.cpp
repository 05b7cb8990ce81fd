// `forge train sft --model BASE.gguf|RUN_DIR --data conversations.jsonl [--val-data FILE]
// [--epochs N] [--out DIR] [--resume] [--json]`: supervised fine-tuning of a GPT that
// `forge train gpt` made (models/gpt/sft.h), loss on the assistant's tokens only, with the
// same checkpoints, log.jsonl, resume and DIR/model.gguf as pretraining; under `mpirun -np P`
// data-parallel like `forge train gpt`.
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/data_parallel.h"
#include "app/train_progress.h"
#include "app/training_run.h"
#include "models/gpt/sft.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <string>

namespace forge::app {
namespace {

struct SftCli {
    gpt::SftConfig config;
    std::string model, data, val_data, out = "sft-run";
    bool json = false;
    bool force = false;
    bool length_given = false;  // --epochs
};

int train_and_print(SftCli& cli, distributed::Communicator& world) {
    cli.config.model = cli.model;
    cli.config.data = cli.data;
    cli.config.val_data = cli.val_data;
    cli.config.train.out_dir = cli.out;
    if (!cli.length_given && !cli.config.eval_only && world.is_root())
        spdlog::info("train sft: {} epoch over --data (the default length; --epochs N sets it)", cli.config.epochs);
    CtrlCStopsTraining ctrl_c;
    cli.config.train.stop_requested = [&] { return ctrl_c.requested(); };
    TrainProgress progress;
    const gpt::TrainResult r = gpt::train_sft(cli.config, [&](const gpt::StepReport& s) { progress(s); }, world);
    if (!world.is_root()) return 0;  // rank 0 speaks for the job
    if (r.interrupted && cli.json) {
        fmt::print("{}\n", nlohmann::json{{"interrupted", true}, {"steps", r.steps}, {"out", cli.out}}.dump());
    } else if (r.interrupted) {
        print_interrupted("train sft", r.steps, cli.out);
    } else if (cli.json) {
        const nlohmann::json out = {{"val_loss", r.val_loss}, {"val_bpb", r.val_bpb},
                                    {"loss", r.loss},         {"tokens", r.tokens},
                                    {"tokens_per_s", r.tokens_per_s}, {"steps", r.steps},
                                    {"parameters", r.parameters},     {"seconds", r.seconds},
                                    {"model", r.model.string()}};
        fmt::print("{}\n", out.dump());
    } else if (cli.config.eval_only) {
        fmt::print("{}: val loss {:.4f}, val {:.4f} bits/byte on the replies of the validation conversations\n",
                   r.model.string(), r.val_loss, r.val_bpb);
    } else {
        fmt::print("fine-tuned {} parameters for {} steps ({} tokens, {:.0f} tok/s): loss {:.4f}, "
                   "val loss {:.4f}, val {:.4f} bits/byte on the replies\nwrote {}\n",
                   r.parameters, r.steps, r.tokens, r.tokens_per_s, r.loss, r.val_loss, r.val_bpb, r.model.string());
    }
    return 0;
}

// Whether --model is in --out: the trainer refuses that with its own, more telling message.
bool base_model_in_out(const SftCli& cli) {
    const std::filesystem::path model = cli.model;
    const std::filesystem::path folder = std::filesystem::is_directory(model) ? model : model.parent_path();
    std::error_code error;
    return std::filesystem::weakly_canonical(folder.empty() ? "." : folder, error) ==
           std::filesystem::weakly_canonical(cli.out, error);
}

int run_train_sft(SftCli& cli) {
    if (!cli.config.eval_only && !base_model_in_out(cli)) check_not_finished(cli.out, cli.config.train.resume, cli.force);
    return run_data_parallel([&](distributed::Communicator& world) { return train_and_print(cli, world); });
}

}  // namespace

void add_train_sft_command(CLI::App& train, CommandTable& commands) {
    auto cli = std::make_shared<SftCli>();
    auto& c = cli->config.train;
    c.seq_len = 0;  // the base model's context
    c.batch = 16;
    c.eval_every = 100;
    CLI::App* sft = train.add_subcommand(
        "sft", "Fine-tune a forge GPT on conversations (JSONL, OpenAI's messages), loss on the assistant's tokens");
    sft->add_option("--model", cli->model, "model.gguf from `forge train gpt`, or its run folder")->required();
    sft->add_option("--data", cli->data, "Conversations, one {\"messages\": [...]} per line")
        ->required()->check(input_file());
    sft->add_option("--val-data", cli->val_data, "Held-out conversations (default: the last 5% of --data)")
        ->check(input_file());
    auto* epochs = sft->add_option("--epochs", cli->config.epochs, "Passes over --data (may be fractional)")
        ->capture_default_str()->check(positive_finite(gpt::kMaxEpochs));
    sft->add_option("--out", cli->out, "Run folder: checkpoint, log.jsonl, model.gguf")
        ->capture_default_str()->check(folder_path());
    sft->add_option("--seq-len", c.seq_len, "Tokens per row (default: the model's context)")
        ->check(CLI::Range(std::int64_t{2}, gpt::kMaxContext));
    add_batch_options(*sft, c);
    sft->add_option("--sample-tokens", c.sample_tokens, "Most tokens of the sample reply at each evaluation")
        ->capture_default_str()->check(CLI::Range(1, gpt::kMaxSampleTokens));
    sft->add_flag("--eval-only", cli->config.eval_only,
                  "Only measure --model on the validation conversations (val_loss, val_bpb); write nothing");
    add_run_options(*sft, c);
    sft->add_flag("--json", cli->json, "Print one JSON object: val_loss, val_bpb, loss, tokens, tokens_per_s, model");
    add_force_flag(*sft, cli->force);
    sft->callback([cli, epochs] {
        check_micro_batch(cli->config.train);
        cli->length_given = epochs->count() > 0;
    });
    commands.add(sft, [cli] { return run_train_sft(*cli); });
}

}  // namespace forge::app
