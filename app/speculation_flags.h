// `--spec off|lookup|draft`, `--draft-max N`, `--lookup-file F`, `--model-draft SMALL.gguf`,
// `--draft-min-p P`: speculative decoding
// (models/llm/speculator.h) for chat, serve and bench llm, and its acceptance report.
#pragma once

#include "models/llm/speculator.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace forge::app {

struct SpeculationFlags {
    std::optional<std::string> spec;         // off by default, lookup with a --lookup-file, draft with a --model-draft
    std::int64_t draft_max = 16;
    std::optional<std::string> lookup_file;  // a text the answer may quote
    std::optional<std::string> model_draft;  // a small model with the target's vocabulary
    float draft_min_p = 0.0f;
};

void add_speculation_flags(CLI::App& command, SpeculationFlags& flags);

// The engine's options, with the --model-draft loaded (the engine checks its vocabulary against
// the target's), but for the --lookup-file's tokens, which depend on the model's tokenizer
// (llm::lookup_reference). Throws an Error naming the flags for a bad combination.
llm::SpeculationOptions speculation_options(const SpeculationFlags& flags);
// The same with the --lookup-file read and tokenized, once.
llm::SpeculationOptions speculation_options(const SpeculationFlags& flags, const llm::Tokenizer& tokenizer);

// "; draft acceptance 87.5% (350/400), 3.10 tokens per pass" for a speed line (each decode pass
// gives one token of its own plus the draft tokens it accepts); empty when nothing was drafted.
std::string acceptance_text(std::int64_t drafted, std::int64_t accepted, std::int64_t generated);

}  // namespace forge::app
