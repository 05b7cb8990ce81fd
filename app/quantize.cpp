// `forge quantize IN.gguf OUT.gguf TYPE [--pure]`: llama-quantize for the types forge encodes
// byte-exactly. The pipeline is models/llm/quantize_model.h; this is its command line: flags,
// one log line per tensor (shape in ggml's order, ne[0] = columns first, as llama-quantize
// prints it), the fallback warnings and the summary.
#include "app/commands.h"
#include "models/llm/quantize_model.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>

namespace forge::app {

namespace {

struct QuantizeOptions {
    std::string input;
    std::string output;
    std::string type;
    bool pure = false;
    bool allow_requantize = false;
};

std::string human(std::uint64_t bytes) {
    return bytes >= (1u << 20) ? fmt::format("{:.2f} MiB", static_cast<double>(bytes) / (1u << 20))
                               : fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
}

// TYPE is one forge encodes: anything else is a usage error at parse time.
CLI::Validator known_file_type() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            if (llm::file_type_from_name(text)) return {};
            return fmt::format("unknown or unsupported type '{}' (forge quantizes to: {})", text,
                               fmt::join(llm::file_type_names(), ", "));
        },
        "TYPE");
}

int run_quantize(const QuantizeOptions& o) {
    const auto file_type = llm::file_type_from_name(o.type);
    check(file_type.has_value(), "unknown type '{}'", o.type);  // known_file_type() refused it at parse time
    const llm::QuantizeRequest request{o.input, o.output, *file_type, o.pure, o.allow_requantize};
    const auto warn_fallback = [](const llm::TensorFallback& f) { spdlog::warn("{}: {}", f.name, f.reason); };
    const auto print_tensor = [](const llm::TensorWritten& t) {
        spdlog::info("[{:>4}/{}] {:<32} {:<16} {:>6} -> {:<6} {:>10} -> {}", t.step, t.count, t.source.name,
                     t.source.dims_text(), dtype_name(t.source.dtype), dtype_name(t.target), human(t.source.nbytes),
                     human(t.bytes_out));
    };
    const llm::QuantizeSummary summary = llm::quantize_model(request, warn_fallback, print_tensor);
    spdlog::info("{}: {} tensors, {} -> {} ({}{})", o.output, summary.tensors, human(summary.bytes_in),
                 human(summary.bytes_out), file_type->name, o.pure ? ", pure" : "");
    if (summary.fallbacks > 0) {
        spdlog::warn("{} tensors fell back to another type (columns not a multiple of the type's block size)",
                     summary.fallbacks);
    }
    return 0;
}

}  // namespace

void add_quantize_command(CLI::App& forge, CommandTable& commands) {
    CLI::App* cmd = forge.add_subcommand("quantize", "Quantize a GGUF model (llama-quantize semantics)");
    auto o = std::make_shared<QuantizeOptions>();
    cmd->add_option("IN", o->input, "Input GGUF file")->required();
    cmd->add_option("OUT", o->output, "Output GGUF file (written only when complete)")->required();
    cmd->add_option("TYPE", o->type, "Target: Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K_S/M/L Q4_K_S/M Q5_K_S/M Q6_K "
                                     "TQ1_0 TQ2_0 F16 BF16 F32 (Q4_K = Q4_K_M)")->required()->check(known_file_type());
    cmd->add_flag("--pure", o->pure, "Quantize every 2-D weight to TYPE: no mixtures, no output/embedding rules");
    cmd->add_flag("--allow-requantize", o->allow_requantize, "Allow re-quantizing tensors that are already quantized");
    commands.add(cmd, [o] { return run_quantize(*o); });
}

}  // namespace forge::app
