#include "models/llm/lora/merge_adapters.h"

#include "core/error.h"
#include "core/gguf/gguf_writer.h"
#include "core/ops/matmul.h"
#include "core/quant/quantize.h"
#include "models/llm/hparams.h"

#include <map>

namespace forge::llm::lora {

namespace {

// One adapter's pair for a base weight, with its factor (alpha / r) * scale.
struct ScaledPair {
    const LowRankPair* pair;
    float factor;
};

// W + sum of factor * B A, in f32 and then in `type`, into `out`.
void write_merged(const gguf::GgufFile& base, const gguf::TensorInfo& info, const std::vector<ScaledPair>& pairs,
                  DType type, std::span<std::byte> out) {
    Tensor merged = quant::dequantize(base.tensor(info));
    const std::span<float> w = merged.span<float>();
    for (const ScaledPair& p : pairs) {
        // As llama-export-lora: the product in f32, scaled, added to the weight.
        const Tensor delta = matmul(p.pair->b, p.pair->a);  // [n_out, r] x [r, n_in]
        const std::span<const float> d = delta.span<float>();
        for (std::size_t i = 0; i < w.size(); ++i) w[i] += p.factor * d[i];
    }
    const Tensor encoded = type == DType::F32 ? merged : quant::quantize(merged, type);
    check(encoded.nbytes() == out.size(), "{}: merged tensor {} has {} bytes, expected {}", base.source(), info.name,
          encoded.nbytes(), out.size());
    std::copy_n(encoded.raw_data(), out.size(), out.begin());
}

}  // namespace

MergeReport merge_adapters(const MergeRequest& request) {
    const gguf::GgufFile base = gguf::GgufFile::open(request.base);
    LoraStack::load(base, read_hparams(base), request.adapters);  // the checks --lora makes
    std::vector<LoraAdapter> adapters;
    std::map<std::string, std::vector<ScaledPair>> by_weight;
    adapters.reserve(request.adapters.size());  // by_weight points into them
    for (const LoraSpec& spec : request.adapters) {
        adapters.push_back(read_lora_adapter(spec.path));
        const LoraAdapter& adapter = adapters.back();
        for (const auto& [name, pair] : adapter.weights) {
            by_weight[name].push_back({&pair, adapter.alpha_over_rank() * spec.scale});
        }
    }
    if (request.merged_type) {
        check(quant::can_encode(*request.merged_type), "--quantize: forge cannot write {} tensors",
              dtype_name(*request.merged_type));
    }
    gguf::GgufWriter writer(base.version());
    for (const gguf::KeyValue& kv : base.metadata()) writer.set(kv.key, kv.value);
    MergeReport report;
    for (const gguf::TensorInfo& info : base.tensors()) {
        const auto adapted = by_weight.find(info.name);
        if (adapted == by_weight.end()) {
            writer.add_tensor(info.name, info.dtype, info.dims, base.tensor_bytes(info));
            ++report.copied_tensors;
            continue;
        }
        const DType type = request.merged_type.value_or(info.dtype);
        check(quant::can_encode(type), "{}: tensor {} is {}, which forge cannot write back; choose a type with --quantize",
              request.base, info.name, dtype_name(type));
        check(info.dims[0] % dtype_traits(type).block_size == 0, "{}: tensor {} has rows of {}, not whole {} blocks", request.base,
              info.name, info.dims[0], dtype_name(type));
        writer.add_tensor(info.name, type, info.dims,
                          [&base, &info, pairs = adapted->second, type](std::span<std::byte> out) {
                              write_merged(base, info, pairs, type, out);
                          });
        ++report.merged_tensors;
    }
    writer.write(request.output);
    return report;
}

}  // namespace forge::llm::lora
