#include "app/speculation_flags.h"

#include "app/bundled_models.h"
#include "app/cli_checks.h"
#include "app/text_file.h"
#include "core/error.h"

#include <fmt/format.h>

#include <filesystem>

namespace forge::app {

void add_speculation_flags(CLI::App& command, SpeculationFlags& flags) {
    command
        .add_option("--spec", flags.spec,
                    "Speculative decoding: off, lookup (guess from n-grams of the prompt, the answer and "
                    "--lookup-file) or draft (guesses of --model-draft); the same tokens, more per pass "
                    "(default off; lookup with --lookup-file, draft with --model-draft)")
        ->check(accepted_by([](const std::string& name) { (void)llm::spec_mode_from_name(name); }, "off|lookup|draft"));
    command.add_option("--draft-max", flags.draft_max, "Most guessed tokens per pass with --spec (default 16)")
        ->check(CLI::Range(std::int64_t{1}, llm::kMaxDraft));
    command.add_option("--lookup-file", flags.lookup_file, "A text the answer may quote: --spec lookup searches it too")
        ->check(input_file());
    command
        .add_option("--model-draft", flags.model_draft,
                    "A smaller GGUF model with the same vocabulary (often the model's own lower-bit file) that "
                    "guesses for --spec draft, or 'default': the bundled chat model's draft");
    command
        .add_option("--draft-min-p", flags.draft_min_p,
                    "With --spec draft: stop a draft when the draft model's most likely token is less likely than "
                    "this (default 0: draft up to --draft-max; llama.cpp's --draft-p-min)")
        ->check(CLI::Range(0.0f, 1.0f));
}

namespace {

// The --model-draft file: the one given, or ("default") the draft model bundled for the bundled
// chat model (models/llm/bundled/forge-chat-draft.gguf, made by tools/train_draft_chat.sh).
std::string draft_model_path(const std::string& argument) {
    if (argument == "default") return resolve_model(argument, kBundledChatDraftModel);
    check(std::filesystem::is_regular_file(argument), "--model-draft {}: no such model file", argument);
    return argument;
}

}  // namespace

llm::SpeculationOptions speculation_options(const SpeculationFlags& flags) {
    llm::SpeculationOptions options;
    options.mode = flags.spec          ? llm::spec_mode_from_name(*flags.spec)
                   : flags.model_draft ? llm::SpecMode::Draft
                   : flags.lookup_file ? llm::SpecMode::Lookup
                                       : llm::SpecMode::Off;
    options.draft_max = flags.draft_max;
    options.draft_min_p = flags.draft_min_p;
    check(!flags.lookup_file || options.mode == llm::SpecMode::Lookup, "--lookup-file {} needs --spec lookup, not --spec {}",
          flags.lookup_file.value_or(""), flags.spec.value_or("off"));
    check(!flags.model_draft || options.mode == llm::SpecMode::Draft, "--model-draft {} needs --spec draft, not --spec {}",
          flags.model_draft.value_or(""), flags.spec.value_or("off"));
    check(options.mode != llm::SpecMode::Draft || flags.model_draft, "--spec draft needs --model-draft SMALL.gguf");
    if (flags.model_draft) options.draft_model = llm::DraftModel::load(draft_model_path(*flags.model_draft));
    return options;
}

llm::SpeculationOptions speculation_options(const SpeculationFlags& flags, const llm::Tokenizer& tokenizer) {
    llm::SpeculationOptions options = speculation_options(flags);
    if (flags.lookup_file) options.lookup.reference = llm::lookup_reference(tokenizer, read_text_file(*flags.lookup_file));
    return options;
}

std::string acceptance_text(std::int64_t drafted, std::int64_t accepted, std::int64_t generated) {
    if (drafted <= 0) return {};
    const std::int64_t passes = std::max<std::int64_t>(1, generated - accepted);
    return fmt::format("; draft acceptance {:.1f}% ({}/{}), {:.2f} tokens per pass",
                       100.0 * static_cast<double>(accepted) / static_cast<double>(drafted), accepted, drafted,
                       static_cast<double>(generated) / static_cast<double>(passes));
}

}  // namespace forge::app
