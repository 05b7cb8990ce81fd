// `--lora A.gguf[:SCALE]` (repeatable), the one flag `forge chat`, `forge logits` and
// `forge serve` share for LoRA adapters applied at run time (models/llm/lora/lora_stack.h).
#pragma once

#include "core/error.h"
#include "models/llm/lora/lora_stack.h"
#include "models/llm/model.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace forge::app {

inline void add_lora_flag(CLI::App& cmd, std::vector<std::string>& adapters) {
    cmd.add_option("--lora", adapters,
                   "LoRA adapter (llama.cpp's GGUF adapter format) applied at run time, as FILE or FILE:SCALE "
                   "(scale 1 by default); repeat for several")
        ->allow_extra_args(false)
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                try {
                    llm::lora::parse_lora_spec(text);
                } catch (const Error& e) {
                    return e.what();
                }
                return {};
            },
            "FILE[:SCALE]"))
        ->type_name("FILE[:SCALE]");
}

// Checks the adapters against `model` and attaches them; errors name the adapter file.
inline void attach_lora_adapters(llm::Model& model, const std::vector<std::string>& adapters) {
    std::vector<llm::lora::LoraSpec> specs;
    for (const std::string& text : adapters) specs.push_back(llm::lora::parse_lora_spec(text));
    model.attach_lora(specs);
}

}  // namespace forge::app
