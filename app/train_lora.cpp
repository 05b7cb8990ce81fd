// `forge train lora --model BASE.gguf --data chat.jsonl | --text FILE [--val-data FILE]
// [--rank 16] [--alpha 32] [--targets q,k,v,o,gate,up,down] [--dropout P] [--lr R]
// [--epochs N | --steps N] [--warmup-ratio F] [--warmdown-ratio F] [--final-lr-frac F]
// [--seq-len T] [--batch B] [--checkpointing full|matmuls|off] [--out DIR] [--resume] [--json]`:
// LoRA fine-tuning of a downloaded llama-family GGUF whose weights stay frozen in their
// file's format (models/llm/lora/lora_trainer.h); writes DIR/adapter.gguf in llama.cpp's
// LoRA format, with the checkpoints, log.jsonl, resume, Ctrl-C, learning-rate schedule and
// `mpirun -np P` data parallelism of `forge train gpt`.
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/data_parallel.h"
#include "app/train_progress.h"
#include "app/training_run.h"
#include "models/gpt/sft.h"
#include "models/llm/lora/lora_trainer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace forge::app {
namespace {

struct LoraCli {
    llm::lora::LoraTrainConfig config;
    std::string model, data, text, val_data, targets = "q,k,v,o,gate,up,down", out = "lora-run";
    std::string checkpointing = "matmuls";
    bool json = false;
    bool force = false;
};

int train_and_print(LoraCli& cli, distributed::Communicator& world) {
    auto& c = cli.config;
    if (world.size() > 1 && world.is_root()) spdlog::info("data parallel: {}", world.describe());
    CtrlCStopsTraining ctrl_c;
    c.stop_requested = [&] { return ctrl_c.requested(); };
    TrainProgress progress;
    const llm::lora::LoraTrainResult r = llm::lora::train_lora(
        c, [&](const gpt::StepReport& s) {
            if (!cli.json) progress(s);
        },
        world);
    if (!world.is_root()) return 0;  // rank 0 speaks for the job
    if (r.interrupted && cli.json) {
        fmt::print("{}\n", nlohmann::json{{"interrupted", true}, {"steps", r.steps}, {"out", cli.out}}.dump());
    } else if (r.interrupted) {
        print_interrupted("train lora", r.steps, cli.out);
    } else if (cli.json) {
        const nlohmann::json out = {{"val_loss", r.val_loss},     {"val_bpb", r.val_bpb},   {"val_exact", r.val_exact}, {"loss", r.loss},
                                    {"tokens", r.tokens},         {"tokens_per_s", r.tokens_per_s},
                                    {"steps", r.steps},           {"parameters", r.parameters},
                                    {"seconds", r.seconds},       {"adapter", r.model.string()}};
        fmt::print("{}\n", out.dump());
    } else {
        fmt::print("trained {} adapter parameters for {} steps ({} tokens, {:.0f} tok/s): loss {:.4f}, val loss {:.4f}\n"
                   "wrote {} (use it with --lora, or llama.cpp's --lora)\n",
                   r.parameters, r.steps, r.tokens, r.tokens_per_s, r.loss, r.val_loss, r.model.string());
    }
    return 0;
}

int run_train_lora(LoraCli& cli) {
    auto& c = cli.config;
    c.model = cli.model;
    c.text = !cli.text.empty();
    c.data = c.text ? cli.text : cli.data;
    c.val_data = cli.val_data;
    c.out_dir = cli.out;
    c.lora.targets = llm::lora::parse_targets(cli.targets);
    c.lora.checkpointing = llm::lora::parse_checkpointing(cli.checkpointing);
    check_not_finished(cli.out, c.resume, cli.force, "adapter.gguf");
    return run_data_parallel([&](distributed::Communicator& world) { return train_and_print(cli, world); });
}

}  // namespace

void add_train_lora_command(CLI::App& train, CommandTable& commands) {
    auto cli = std::make_shared<LoraCli>();
    auto& c = cli->config;
    const CLI::Range steps_range(std::int64_t{1}, kMaxTrainingSteps);
    CLI::App* lora = train.add_subcommand(
        "lora", "Fine-tune a GGUF (any quantization) with LoRA on conversations or text; writes a llama.cpp adapter");
    lora->add_option("--model", cli->model, "The base model GGUF (llama, qwen2, qwen3, smollm3; f32 to Q4_K_M)")
        ->required()->check(input_file());
    auto* data = lora->add_option("--data", cli->data, "Conversations, one {\"messages\": [...]} per line")
        ->check(input_file());
    auto* text = lora->add_option("--text", cli->text, "Plain text instead of --data (continued pretraining)")
        ->check(input_file())->excludes(data);
    lora->add_option("--val-data", cli->val_data, "Held-out conversations (or text with --text); default: the last 5%")
        ->check(input_file());
    lora->add_option("--rank", c.lora.rank, "Rank r of the factors")
        ->capture_default_str()->check(CLI::Range(std::int64_t{1}, std::int64_t{4096}));
    lora->add_option("--alpha", c.lora.alpha, "Scale numerator: the update is (alpha / r) B A x")
        ->capture_default_str()->check(positive_finite(1e6));
    lora->add_option("--targets", cli->targets, "Adapted matrices of each block: any of q,k,v,o,gate,up,down")
        ->capture_default_str()->check(accepted_by([](const std::string& s) { llm::lora::parse_targets(s); },
                                                   "a list of q,k,v,o,gate,up,down"));
    lora->add_option("--dropout", c.lora.dropout, "Dropout on the adapters' inputs")
        ->capture_default_str()->check(finite_range(0.0, 0.99));
    lora->add_option("--lr", c.lr, "AdamW's peak learning rate (the schedule's multiplier of 1)")
        ->capture_default_str()->check(positive_finite(kMaxLearningRate));
    lora->add_option("--warmup-ratio", c.schedule.warmup_ratio, "First fraction of steps rising linearly to --lr")
        ->capture_default_str()->check(finite_range(0.0, 1.0));
    lora->add_option("--warmdown-ratio", c.schedule.warmdown_ratio, "Final fraction of steps decaying linearly")
        ->capture_default_str()->check(finite_range(0.0, 1.0));
    lora->add_option("--final-lr-frac", c.schedule.final_lr_frac, "The warmdown's end as a fraction of --lr")
        ->capture_default_str()->check(finite_range(0.0, 1.0));
    lora->add_option("--weight-decay", c.weight_decay, "AdamW's decoupled weight decay")
        ->capture_default_str()->check(finite_range(0.0, 1.0));
    auto* epochs = lora->add_option("--epochs", c.epochs, "Passes over the training rows (may be fractional)")
        ->capture_default_str()->check(positive_finite(gpt::kMaxEpochs));
    lora->add_option("--steps", c.steps, "Optimizer steps (instead of --epochs)")->check(steps_range)->excludes(epochs);
    lora->add_option("--seq-len", c.seq_len, "Tokens per row (conversations are packed whole)")
        ->capture_default_str()->check(CLI::Range(std::int64_t{2}, std::int64_t{1} << 20));
    lora->add_option("--batch", c.batch, "Rows per optimizer step (the global batch: under mpirun, split over the ranks)")
        ->capture_default_str()->check(CLI::Range(std::int64_t{1}, gpt::kMaxBatch));
    lora->add_option("--micro-batch", c.micro_batch, "Rows per forward/backward (divides each rank's share of --batch)")
        ->capture_default_str()->check(CLI::Range(std::int64_t{1}, gpt::kMaxBatch));
    lora->add_option("--checkpointing", cli->checkpointing,
                     "What the backward recomputes: full (each block: least memory), matmuls (all but the base's "
                     "products), off (nothing: most memory); the same results")
        ->capture_default_str()->check(CLI::IsMember({"full", "matmuls", "off"}));
    lora->add_option("--seed", c.lora.seed, "Seed of A's initialisation, the data order and dropout")->capture_default_str();
    lora->add_option("--eval-every", c.eval_every, "Steps between validations")->capture_default_str()->check(steps_range);
    lora->add_option("--checkpoint-every", c.checkpoint_every, "Steps between checkpoints")
        ->capture_default_str()->check(steps_range);
    lora->add_option("--out", cli->out, "Run folder: checkpoint, log.jsonl, adapter.gguf")
        ->capture_default_str()->check(folder_path());
    lora->add_flag("--resume", c.resume, "Continue from OUT/checkpoint.safetensors");
    lora->add_flag("--json", cli->json, "Print one JSON object: val_loss, val_bpb, val_exact, loss, tokens, tokens_per_s, adapter");
    add_force_flag(*lora, cli->force);
    lora->callback([cli, data, text] {
        if (data->count() + text->count() == 0) throw CLI::RequiredError("--data or --text");
        if (cli->config.schedule.warmup_ratio + cli->config.schedule.warmdown_ratio > 1.0f)
            throw CLI::ValidationError("--warmup-ratio", fmt::format("{} and --warmdown-ratio {} add up to more than 1",
                                                                     cli->config.schedule.warmup_ratio,
                                                                     cli->config.schedule.warmdown_ratio));
        if (cli->config.batch % cli->config.micro_batch != 0)
            throw CLI::ValidationError("--micro-batch", fmt::format("{} does not divide --batch {}",
                                                                    cli->config.micro_batch, cli->config.batch));
    });
    commands.add(lora, [cli] { return run_train_lora(*cli); });
}

}  // namespace forge::app
