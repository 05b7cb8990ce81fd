#include "models/llm/quantize_model.h"

#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "core/gguf/gguf_writer.h"
#include "core/gguf/metadata.h"
#include "core/quant/quantize.h"
#include "core/thread_pool.h"

#include <algorithm>
#include <climits>

namespace forge::llm {

namespace {

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

}  // namespace

ModelFacts read_model_facts(const gguf::GgufFile& file) {
    const gguf::Metadata meta(file);
    const gguf::Range<std::int64_t> count{0, INT_MAX};
    ModelFacts facts;
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

QuantizeSummary quantize_model(const QuantizeRequest& request,
                               const std::function<void(const TensorFallback&)>& on_fallback,
                               const std::function<void(const TensorWritten&)>& on_written) {
    checkpoint::check_not_an_input(request.output, {request.input});
    const auto file = gguf::GgufFile::open(request.input);

    std::vector<TensorFacts> facts;
    for (const auto& info : file.tensors()) facts.push_back({info.name, info.dtype, info.dims});
    const auto order = llama_tensor_order(facts);  // llama-quantize's output order
    std::vector<TensorFacts> ordered;
    for (const auto i : order) ordered.push_back(facts[i]);
    Mixture mixture(request.type, request.pure, read_model_facts(file), ordered);

    // Metadata as llama-quantize writes it: the input's entries, then these two appended.
    gguf::GgufWriter writer(file.version());
    for (const auto& kv : file.metadata()) writer.set(kv.key, kv.value);
    writer.remove("general.quantization_version");
    writer.remove("general.file_type");
    writer.set("general.quantization_version", std::uint32_t{2});  // GGML_QNT_VERSION
    writer.set("general.file_type", static_cast<std::uint32_t>(request.type.id));

    QuantizeSummary summary;
    summary.tensors = file.tensors().size();
    for (std::size_t step = 0; step < summary.tensors; ++step) {
        const std::size_t i = order[step];
        const auto& info = file.tensors()[i];
        const auto choice = mixture.choose(facts[i]);
        const bool convert_it = choice.quantized && choice.dtype != info.dtype;
        if (convert_it && is_quantized(info.dtype) && !request.allow_requantize) {
            fail("{}: tensor '{}' is already {}: re-quantizing to {} would lose precision (pass --allow-requantize "
                 "to do it anyway)", request.input, info.name, dtype_name(info.dtype), dtype_name(choice.dtype));
        }
        if (convert_it) {
            check(quant::can_decode(info.dtype), "{}: cannot decode tensor '{}' of type {}", request.input, info.name,
                  dtype_name(info.dtype));
        }
        if (!choice.fallback.empty()) {
            ++summary.fallbacks;
            on_fallback({info.name, choice.fallback});
        }
        const DType target = convert_it ? choice.dtype : info.dtype;
        const std::uint64_t out_bytes = dtype_bytes(target, static_cast<std::size_t>(info.numel()));
        summary.bytes_in += info.nbytes;
        summary.bytes_out += out_bytes;
        writer.add_tensor(info.name, target, info.dims, [&, i, step, convert_it, target, out_bytes](std::span<std::byte> out) {
            const auto& t = file.tensors()[i];
            if (convert_it) convert(file, t, target, out);
            else std::copy_n(file.tensor_bytes(t).begin(), out.size(), out.begin());
            on_written({step + 1, summary.tensors, t, target, out_bytes});
        });
    }
    writer.write(request.output);
    return summary;
}

}  // namespace forge::llm
