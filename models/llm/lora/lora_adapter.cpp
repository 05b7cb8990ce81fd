#include "models/llm/lora/lora_adapter.h"

#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "core/quant/quantize.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

namespace forge::llm::lora {

namespace {

constexpr std::string_view kSuffixA = ".lora_a";
constexpr std::string_view kSuffixB = ".lora_b";

std::string metadata_string(const gguf::GgufFile& file, std::string_view key) {
    const gguf::Value* value = file.find(key);
    check_format(value != nullptr, "{}: metadata key {} is missing (not a LoRA adapter)", file.source(), key);
    const std::string* text = value->string();
    check_format(text != nullptr, "{}: metadata key {} is a {}, expected a string", file.source(), key,
                 gguf::value_type_name(value->type()));
    return *text;
}

// llama.cpp reads adapter.lora.alpha as optional (0 when absent); any numeric type is accepted.
float read_alpha(const gguf::GgufFile& file) {
    const gguf::Value* value = file.find("adapter.lora.alpha");
    if (value == nullptr) return 0.0f;
    const std::optional<double> alpha = value->as_double();
    check_format(alpha.has_value() && *alpha >= 0.0, "{}: metadata key adapter.lora.alpha is {}, expected a number >= 0",
                 file.source(), value->to_string());
    return static_cast<float>(*alpha);
}

void check_is_lora_adapter(const gguf::GgufFile& file) {
    const std::string type = metadata_string(file, "general.type");
    check_format(type == "adapter", "{}: general.type is \"{}\", expected \"adapter\" (is this a model, not a LoRA adapter?)",
                 file.source(), type);
    const std::string adapter_type = metadata_string(file, "adapter.type");
    check_format(adapter_type == "lora", "{}: adapter.type is \"{}\"; forge applies only \"lora\" adapters", file.source(),
                 adapter_type);
}

// A factor as f32 in forge's orientation (outermost first): f32 copied, f16 and bf16 widened.
Tensor read_factor(const gguf::GgufFile& file, const gguf::TensorInfo& info) {
    check_format(info.dims.size() == 2, "{}: tensor {} has {} dims, a LoRA factor has 2", file.source(), info.name,
                 info.dims.size());
    check_format(info.dtype == DType::F32 || info.dtype == DType::F16 || info.dtype == DType::BF16,
                 "{}: tensor {} has dtype {}; LoRA factors must be f32, f16 or bf16", file.source(), info.name,
                 dtype_name(info.dtype));
    const Tensor stored = file.tensor(info);
    // clone(): the adapter outlives the mapping's usefulness and is small.
    return stored.dtype() == DType::F32 ? stored.clone() : quant::dequantize(stored);
}

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Collects each <W>.lora_a / <W>.lora_b into its pair, rejecting anything else.
std::map<std::string, LowRankPair> read_pairs(const gguf::GgufFile& file) {
    std::map<std::string, LowRankPair> pairs;
    for (const gguf::TensorInfo& info : file.tensors()) {
        const bool is_a = ends_with(info.name, kSuffixA);
        check_format(is_a || ends_with(info.name, kSuffixB),
                     "{}: tensor {} is neither <weight>.lora_a nor <weight>.lora_b", file.source(), info.name);
        const std::string base = info.name.substr(0, info.name.size() - kSuffixA.size());
        (is_a ? pairs[base].a : pairs[base].b) = read_factor(file, info);
    }
    check_format(!pairs.empty(), "{}: the adapter holds no lora_a/lora_b tensors", file.source());
    return pairs;
}

void check_pairs(const std::string& source, const std::map<std::string, LowRankPair>& pairs) {
    std::int64_t shared_rank = 0;
    for (const auto& [name, pair] : pairs) {
        check_format(pair.a.defined(), "{}: tensor {}{} has no {}{}", source, name, kSuffixB, name, kSuffixA);
        check_format(pair.b.defined(), "{}: tensor {}{} has no {}{}", source, name, kSuffixA, name, kSuffixB);
        check_format(pair.a.rank() == 2 && pair.b.rank() == 2, "{}: the factors of {} must be matrices", source, name);
        const std::int64_t rank = pair.rank();
        check_format(rank > 0 && pair.b.shape()[1] == rank,
                     "{}: tensor {}{} has GGUF dims [{}, {}] but {}{} has [{}, {}]: the ranks (lora_a's ne[1], "
                     "lora_b's ne[0]) differ",
                     source, name, kSuffixA, pair.a.shape()[1], rank, name, kSuffixB, pair.b.shape()[1],
                     pair.b.shape()[0]);
        if (shared_rank == 0) shared_rank = rank;
        check_format(rank == shared_rank, "{}: tensor {}{} has rank {} but other pairs have rank {}", source, name,
                     kSuffixA, rank, shared_rank);
    }
}

// "blk.12.attn_q.weight" -> 12; names outside the blocks sort before them.
std::int64_t layer_of(std::string_view name) {
    constexpr std::string_view kPrefix = "blk.";
    if (!name.starts_with(kPrefix)) return -1;
    std::int64_t layer = -1;
    const char* first = name.data() + kPrefix.size();
    std::from_chars(first, name.data() + name.size(), layer);
    return layer;
}

// Layer by layer (blk.2 before blk.10, unlike the map's string order), then by name.
std::vector<std::string> in_layer_order(const std::map<std::string, LowRankPair>& weights) {
    std::vector<std::string> names;
    for (const auto& entry : weights) names.push_back(entry.first);
    std::stable_sort(names.begin(), names.end(),
                     [](const std::string& x, const std::string& y) { return layer_of(x) < layer_of(y); });
    return names;
}

std::span<const std::byte> bytes_of(const Tensor& t) {
    return {t.raw_data(), t.nbytes()};
}

}  // namespace

float LoraAdapter::alpha_over_rank() const {
    // llama.cpp (llama_adapter_lora_weight's scale): an adapter without alpha scales by 1.
    if (alpha == 0.0f || weights.empty()) return 1.0f;
    return alpha / static_cast<float>(weights.begin()->second.rank());
}

LoraAdapter read_lora_adapter(const std::string& path) {
    const gguf::GgufFile file = gguf::GgufFile::open(path);
    check_is_lora_adapter(file);
    LoraAdapter adapter;
    adapter.architecture = metadata_string(file, "general.architecture");
    adapter.alpha = read_alpha(file);
    adapter.weights = read_pairs(file);
    check_pairs(file.source(), adapter.weights);
    return adapter;
}

void write_lora_adapter(const LoraAdapter& adapter, const std::string& path) {
    check(!adapter.weights.empty(), "{}: a LoRA adapter needs at least one adapted weight", path);
    check_pairs(path, adapter.weights);
    gguf::GgufWriter writer;
    writer.set("general.architecture", adapter.architecture);
    writer.set("general.type", "adapter");
    writer.set("adapter.type", "lora");
    writer.set("adapter.lora.alpha", adapter.alpha);
    // Contiguous f32 copies kept alive until write() has read them.
    std::vector<Tensor> keep;
    for (const std::string& name : in_layer_order(adapter.weights)) {
        const LowRankPair& pair = adapter.weights.at(name);
        const Tensor a = pair.a.to(DType::F32).contiguous();
        const Tensor b = pair.b.to(DType::F32).contiguous();
        // GGUF dims are innermost first: A [r, n_in] is ne [n_in, r], B [n_out, r] is ne [r, n_out].
        writer.add_tensor(name + std::string(kSuffixA), DType::F32, {a.shape()[1], a.shape()[0]}, bytes_of(a));
        writer.add_tensor(name + std::string(kSuffixB), DType::F32, {b.shape()[1], b.shape()[0]}, bytes_of(b));
        keep.push_back(a);
        keep.push_back(b);
    }
    writer.write(path);
}

}  // namespace forge::llm::lora
