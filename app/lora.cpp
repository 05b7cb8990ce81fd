// `forge lora merge BASE.gguf A.gguf[:SCALE]... OUT.gguf [--quantize TYPE]`: adapters merged
// into the base's weights, as llama.cpp's llama-export-lora (models/llm/lora/merge_adapters.h).
#include "app/cli_checks.h"
#include "app/commands.h"
#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "models/llm/lora/merge_adapters.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>

namespace forge::app {

namespace {

struct MergeOptions {
    std::vector<std::string> files;  // BASE, the adapters, OUT
    std::string quantize;
};

// --quantize's value (case-insensitive, as llama-export-lora's --outtype-like names).
DType merged_type_named(const std::string& text) {
    std::string name = text;
    std::ranges::transform(name, name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::optional<DType> type = dtype_from_name(name);
    check(type.has_value(), "--quantize: '{}' is not a tensor type (f32, f16, bf16, q8_0, q4_k, ...)", text);
    return *type;
}

int run_merge(const MergeOptions& o) {
    check(o.files.size() >= 3, "forge lora merge: expected BASE.gguf, at least one ADAPTER.gguf[:SCALE] and OUT.gguf");
    llm::lora::MergeRequest request;
    request.base = o.files.front();
    request.output = o.files.back();
    for (std::size_t i = 1; i + 1 < o.files.size(); ++i) request.adapters.push_back(llm::lora::parse_lora_spec(o.files[i]));
    checkpoint::check_not_an_input(request.output, {request.base});
    for (const auto& adapter : request.adapters) checkpoint::check_not_an_input(request.output, {adapter.path});
    if (!o.quantize.empty()) request.merged_type = merged_type_named(o.quantize);
    const llm::lora::MergeReport report = llm::lora::merge_adapters(request);
    spdlog::info("wrote {}: {} weights merged with {} adapter(s), {} tensors copied", request.output,
                 report.merged_tensors, request.adapters.size(), report.copied_tensors);
    return 0;
}

}  // namespace

void add_lora_command(CLI::App& forge, CommandTable& commands) {
    CLI::App* lora = forge.add_subcommand("lora", "LoRA adapters (llama.cpp's GGUF adapter format)");
    lora->require_subcommand(1);
    auto o = std::make_shared<MergeOptions>();
    CLI::App* merge = lora->add_subcommand(
        "merge", "Merge adapters into a base model, as llama-export-lora: BASE.gguf ADAPTER.gguf[:SCALE]... OUT.gguf");
    merge->add_option("FILES", o->files, "The base model, one or more adapters (FILE or FILE:SCALE), the output file")
        ->required()
        ->expected(3, -1);
    merge->add_option("--quantize", o->quantize,
                      "Type of the merged weights (f32, f16, q8_0, q4_k, ...; default: each weight's type in the base)")
        ->check(accepted_by([](const std::string& text) { merged_type_named(text); }, "TYPE"));
    commands.add(merge, [o] { return run_merge(*o); });
}

}  // namespace forge::app
