// `forge train <task>`: train a model from scratch: `spirals`, the two-spirals classifier
// (models/spirals/), trained by gradients or evolution strategies; `gpt` (train_gpt.cpp), `sft`
// (train_sft.cpp), `lora` (train_lora.cpp), `tokenizer` (train_tokenizer.cpp) and `asr` (train_asr.cpp), each in its
// own file.
#include "app/cli_checks.h"
#include "app/commands.h"
#include "models/spirals/spirals_train.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>

namespace forge::app {

// `forge train sft` (train_sft.cpp).
void add_train_sft_command(CLI::App& train, CommandTable& commands);
// `forge train lora` (train_lora.cpp).
void add_train_lora_command(CLI::App& train, CommandTable& commands);

namespace {

struct SpiralsArgs {
    std::string optimizer = "adamw";
    std::int64_t steps = 0;
    std::uint64_t seed = 0;
    bool json = false;
};

int run_spirals(const SpiralsArgs& args) {
    spirals::TrainConfig config;
    config.method = spirals::parse_method(args.optimizer);
    config.steps = args.steps;
    config.seed = args.seed;
    // Progress goes to stdout, unless stdout is reserved for the JSON result.
    std::FILE* progress_out = args.json ? stderr : stdout;
    const auto result = spirals::train(config, [&](const spirals::Progress& p) {
        fmt::print(progress_out, "step {:>5}  loss {:.4f}  accuracy {:6.2f}%  {:.0f} steps/s\n", p.step, p.loss,
                   100.0 * p.accuracy, p.steps_per_second);
        std::fflush(progress_out);
    });
    if (args.json) {
        const nlohmann::json out = {{"task", "spirals"},          {"optimizer", spirals::method_name(config.method)},
                                    {"steps", result.steps},       {"seed", args.seed},
                                    {"accuracy", result.accuracy}, {"loss", result.loss},
                                    {"seconds", result.seconds}};
        fmt::print("{}\n", out.dump());
    } else {
        fmt::print("spirals ({}): accuracy {:.2f}%, loss {:.4f}, {} steps in {:.2f} s\n",
                   spirals::method_name(config.method), 100.0 * result.accuracy, result.loss, result.steps,
                   result.seconds);
    }
    return 0;
}

}  // namespace

void add_train_command(CLI::App& forge, CommandTable& commands) {
    CLI::App* train = forge.add_subcommand("train", "Train a model from scratch");
    train->require_subcommand(1);

    auto args = std::make_shared<SpiralsArgs>();
    CLI::App* spirals = train->add_subcommand("spirals", "Two-spirals classification with a named-axes MLP");
    spirals->add_option("--optimizer", args->optimizer, "sgd, adamw, muon or es")
        ->check(CLI::IsMember({"sgd", "adamw", "muon", "es"}))
        ->capture_default_str();
    spirals->add_option("--steps", args->steps, "Training steps (default: the optimizer's own)")->check(CLI::Range(std::int64_t{1}, kMaxTrainingSteps));
    spirals->add_option("--seed", args->seed, "Seed of the data and the initialization")->capture_default_str();
    spirals->add_flag("--json", args->json, "Print one JSON object with the final accuracy and loss");
    commands.add(spirals, [args] { return run_spirals(*args); });

    add_train_gpt_command(*train, commands);
    add_train_sft_command(*train, commands);
    add_train_lora_command(*train, commands);
    add_train_tokenizer_command(*train, commands);
    add_train_asr_command(*train, commands);
}

}  // namespace forge::app
