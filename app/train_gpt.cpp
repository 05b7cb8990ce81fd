// `forge train gpt --data FILE... --tokenizer TOK.gguf [--depth D] [--seq-len T] [--batch B]
// [--steps N | --tokens N] [--seed S] [--out DIR] [--resume] [--json]`: pretrain a GPT from
// scratch (models/gpt/) and export DIR/model.gguf for llama.cpp and `forge chat`. Under
// `mpirun -np P` the P processes train one model data-parallel (core/distributed/).
#include "app/commands.h"
#include "core/distributed/world.h"
#include "models/gpt/trainer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace forge::app {
namespace {

struct GptCli {
    gpt::TrainConfig config;
    std::vector<std::string> data;
    std::string tokenizer, out = "gpt-run";
    bool json = false;
};

std::string duration(double seconds) {
    const auto s = static_cast<long>(seconds + 0.5);
    return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s / 60 % 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

// A redrawn bar with loss, tokens/s and ETA on a terminal; plain lines at evaluations
// (and always, when stderr is not a terminal, one per evaluation or checkpoint step).
class Progress {
public:
    Progress() : tty_(isatty(fileno(stderr)) != 0) {}
    void operator()(const gpt::StepReport& r) {
        if (first_ < 0) first_ = r.step;  // a resumed run starts counting its own steps
        const double eta =
            r.elapsed_s / static_cast<double>(r.step - first_ + 1) * static_cast<double>(r.total_steps - r.step);
        if (tty_) {
            const int filled = static_cast<int>(30 * r.step / r.total_steps);
            fmt::print(stderr, "\r[{:<30}] step {}/{} loss {:.4f} {:.0f} tok/s ETA {}   ",
                       std::string(static_cast<std::size_t>(filled), '#'), r.step, r.total_steps, r.loss,
                       r.tokens_per_s, duration(eta));
        }
        if (!r.val_bpb) return;
        if (tty_) fmt::print(stderr, "\r{:<100}\r", "");
        fmt::print(stderr, "step {}/{}: loss {:.4f}, val {:.4f} bits/byte, {:.0f} tok/s, lr x{:.3f}, {} elapsed\n",
                   r.step, r.total_steps, r.loss, *r.val_bpb, r.tokens_per_s, r.lr_multiplier, duration(r.elapsed_s));
        if (r.sample) fmt::print(stderr, "  sample: {}\n", nlohmann::json(*r.sample).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }

private:
    bool tty_;
    std::int64_t first_ = -1;
};

int train_and_print(GptCli& cli, distributed::Communicator& world) {
    for (const auto& d : cli.data) cli.config.data.emplace_back(d);
    cli.config.tokenizer = cli.tokenizer;
    cli.config.out_dir = cli.out;
    if (world.size() > 1 && world.is_root()) spdlog::info("data parallel: {}", world.describe());
    Progress progress;
    const gpt::TrainResult r = gpt::train_gpt(cli.config, [&](const gpt::StepReport& s) { progress(s); }, world);
    if (!world.is_root()) return 0;  // rank 0 speaks for the job
    if (cli.json) {
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

// A failure on one rank of a job ends the whole job at once (the other ranks would otherwise
// wait at the next gradient sum forever), with the error and the failing rank on stderr.
int run_train_gpt(GptCli& cli) {
    const auto world = distributed::connect_world();
    if (world->size() == 1) return train_and_print(cli, *world);
    try {
        return train_and_print(cli, *world);
    } catch (const std::exception& e) {
        fmt::print(stderr, "forge: error on rank {} of {}: {}\n", world->rank(), world->size(), e.what());
        std::fflush(stderr);
        world->abort_job(1);
    }
    return 1;  // not reached: abort_job ends the process
}

}  // namespace

void add_train_gpt_command(CLI::App& train, CommandTable& commands) {
    auto cli = std::make_shared<GptCli>();
    auto& c = cli->config;
    CLI::App* gpt = train.add_subcommand("gpt", "Pretrain a GPT on text files and export a GGUF (qwen3) model");
    gpt->add_option("--data", cli->data, "Text files; blank lines separate documents")->required()->check(CLI::ExistingFile);
    gpt->add_option("--tokenizer", cli->tokenizer, "GGUF with tokenizer.ggml.* keys (its vocabulary and BOS)")
        ->required()->check(CLI::ExistingFile);
    gpt->add_option("--out", cli->out, "Run folder: checkpoint, log.jsonl, model.gguf")->capture_default_str();
    gpt->add_option("--depth", c.depth, "Transformer blocks (width = 64 x depth)")->capture_default_str();
    gpt->add_option("--head-dim", c.head_dim, "64 or 128 (default: 128 when it divides the width)");
    gpt->add_option("--seq-len", c.seq_len, "Tokens per row")->capture_default_str();
    gpt->add_option("--batch", c.batch, "Rows per optimizer step (the global batch)")->capture_default_str();
    gpt->add_option("--micro-batch", c.micro_batch, "Rows per forward/backward (default: what fits 2 GiB)");
    auto* steps = gpt->add_option("--steps", c.steps, "Optimizer steps");
    gpt->add_option("--tokens", c.tokens, "Training tokens (default: 20 per parameter)")->excludes(steps);
    gpt->add_option("--seed", c.seed, "Seed of the initialization and the data order")->capture_default_str();
    gpt->add_option("--eval-every", c.eval_every, "Steps between validations and samples")->capture_default_str();
    gpt->add_option("--checkpoint-every", c.checkpoint_every, "Steps between checkpoints")->capture_default_str();
    gpt->add_option("--eval-tokens", c.eval_tokens, "Validation tokens per evaluation")->capture_default_str();
    gpt->add_option("--sample-prompt", c.sample_prompt, "Text the greedy samples continue")->capture_default_str();
    gpt->add_option("--matrix-lr", c.optimizer.matrix_lr, "Muon rate before scaling")->capture_default_str();
    gpt->add_option("--embedding-lr", c.optimizer.embedding_lr, "AdamW rate of the embedding before scaling")
        ->capture_default_str();
    gpt->add_option("--unembedding-lr", c.optimizer.unembedding_lr, "AdamW rate of the head before scaling")
        ->capture_default_str();
    gpt->add_option("--warmdown-ratio", c.optimizer.warmdown_ratio, "Final fraction of steps decaying to 0")
        ->capture_default_str();
    gpt->add_option("--grad-clip", c.optimizer.grad_clip, "Global gradient-norm bound (0: none)")->capture_default_str();
    gpt->add_flag("--resume", c.resume, "Continue from OUT/checkpoint.safetensors");
    gpt->add_flag("--json", cli->json, "Print one JSON object: val_bpb, loss, tokens, tokens_per_s, model");
    commands.add(gpt, [cli] { return run_train_gpt(*cli); });
}

}  // namespace forge::app
