// `forge quantize IN.gguf OUT.gguf TYPE [--pure]`: llama-quantize for the types forge encodes
// byte-exactly. Tensors are converted one at a time (read from the mapped input, written
// straight to the output), the output file appears only when complete, and each tensor's
// fate is logged.
#include "app/commands.h"
#include "core/checkpoint/atomic_file.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "core/gguf/metadata.h"
#include "models/llm/quant_mixture.h"
#include "core/quant/quantize.h"
#include "core/thread_pool.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <climits>
#include <filesystem>
#include <memory>
#include <vector>

namespace forge::app {

namespace {

struct QuantizeOptions {
    std::string input;
    std::string output;
    std::string type;
    bool pure = false;
    bool allow_requantize = false;
};

// What the mixture needs to know about the model (a missing key is 0).
llm::ModelFacts model_facts(const gguf::GgufFile& file) {
    const gguf::Metadata meta(file);
    const gguf::Range<std::int64_t> count{0, INT_MAX};
    llm::ModelFacts facts;
    facts.arch = meta.string_or("general.architecture", "");
    const auto count_or_zero = [&](const std::string& key) {
        return static_cast<int>(meta.integer_or(facts.arch + "." + key, 0, count));
    };
    facts.n_layer = count_or_zero("block_count");
    facts.n_head = count_or_zero("attention.head_count");
    facts.n_head_kv = count_or_zero("attention.head_count_kv");
    facts.n_expert = count_or_zero("expert_count");
    if (facts.n_head_kv == 0) facts.n_head_kv = facts.n_head;
    return facts;
}

std::string human(std::uint64_t bytes) {
    return bytes >= (1u << 20) ? fmt::format("{:.2f} MiB", static_cast<double>(bytes) / (1u << 20))
                               : fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
}

// Re-encode one tensor: decode the source rows to f32, encode to the target, chunk by chunk
// so that a large tensor never needs a full f32 copy.
void convert(const gguf::GgufFile& file, const gguf::TensorInfo& info, DType target, std::span<std::byte> out) {
    const std::int64_t row = info.dims.empty() ? 1 : info.dims[0];
    const std::int64_t rows = row == 0 ? 0 : info.numel() / row;
    const std::size_t in_row = dtype_bytes(info.dtype, static_cast<std::size_t>(row));
    const std::size_t out_row = dtype_bytes(target, static_cast<std::size_t>(row));
    const auto source = file.tensor_bytes(info);
    const std::int64_t rows_per_chunk = std::max<std::int64_t>(1, (std::int64_t{1} << 16) / std::max<std::int64_t>(1, row));
    ThreadPool::global().parallel_for(rows, rows_per_chunk, [&](std::int64_t begin, std::int64_t end) {
        const auto n = static_cast<std::size_t>(end - begin);
        std::vector<float> values(n * static_cast<std::size_t>(row));
        quant::dequantize_bytes(info.dtype, source.subspan(static_cast<std::size_t>(begin) * in_row, n * in_row), values);
        quant::quantize_bytes(target, values, out.subspan(static_cast<std::size_t>(begin) * out_row, n * out_row));
    });
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
    checkpoint::check_not_an_input(o.output, {o.input});
    const auto file = gguf::GgufFile::open(o.input);

    std::vector<llm::TensorFacts> facts;
    for (const auto& info : file.tensors()) facts.push_back({info.name, info.dtype, info.dims});
    const auto order = llm::llama_tensor_order(facts);  // llama-quantize's output order
    std::vector<llm::TensorFacts> ordered;
    for (const auto i : order) ordered.push_back(facts[i]);
    llm::Mixture mixture(*file_type, o.pure, model_facts(file), ordered);

    // Metadata as llama-quantize writes it: the input's entries, then these two appended.
    gguf::GgufWriter writer(file.version());
    for (const auto& kv : file.metadata()) writer.set(kv.key, kv.value);
    writer.remove("general.quantization_version");
    writer.remove("general.file_type");
    writer.set("general.quantization_version", std::uint32_t{2});  // GGML_QNT_VERSION
    writer.set("general.file_type", static_cast<std::uint32_t>(file_type->id));

    const std::size_t count = file.tensors().size();
    std::uint64_t bytes_in = 0, bytes_out = 0;
    int fallbacks = 0;
    for (std::size_t step = 0; step < count; ++step) {
        const std::size_t i = order[step];
        const auto& info = file.tensors()[i];
        const auto choice = mixture.choose(facts[i]);
        const bool convert_it = choice.quantized && choice.dtype != info.dtype;
        if (convert_it && is_quantized(info.dtype) && !o.allow_requantize) {
            fail("{}: tensor '{}' is already {}: re-quantizing to {} would lose precision (pass --allow-requantize "
                 "to do it anyway)", o.input, info.name, dtype_name(info.dtype), dtype_name(choice.dtype));
        }
        if (convert_it) {
            check(quant::can_decode(info.dtype), "{}: cannot decode tensor '{}' of type {}", o.input, info.name,
                  dtype_name(info.dtype));
        }
        if (!choice.fallback.empty()) {
            ++fallbacks;
            spdlog::warn("{}: {}", info.name, choice.fallback);
        }
        const DType target = convert_it ? choice.dtype : info.dtype;
        const std::uint64_t out_bytes = dtype_bytes(target, static_cast<std::size_t>(info.numel()));
        bytes_in += info.nbytes;
        bytes_out += out_bytes;
        writer.add_tensor(info.name, target, info.dims, [&, i, step, convert_it, target, out_bytes](std::span<std::byte> out) {
            const auto& t = file.tensors()[i];
            if (convert_it) convert(file, t, target, out);
            else std::copy_n(file.tensor_bytes(t).begin(), out.size(), out.begin());
            spdlog::info("[{:>4}/{}] {:<32} {:<16} {:>6} -> {:<6} {:>10} -> {}", step + 1, count, t.name,
                         t.shape().to_string(), dtype_name(t.dtype), dtype_name(target), human(t.nbytes),
                         human(out_bytes));
        });
    }
    writer.write(o.output);
    spdlog::info("{}: {} tensors, {} -> {} ({}{})", o.output, count, human(bytes_in), human(bytes_out),
                 file_type->name, o.pure ? ", pure" : "");
    if (fallbacks > 0) spdlog::warn("{} tensors fell back to another type (rows not a multiple of 256)", fallbacks);
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
