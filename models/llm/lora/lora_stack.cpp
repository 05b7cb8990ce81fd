#include "models/llm/lora/lora_stack.h"

#include "core/error.h"

#include <charconv>
#include <cmath>
#include <optional>

namespace forge::llm::lora {

namespace {

// Rows [first, first + count) of a base weight's output that a projection takes.
struct ProjectionRows {
    Projection projection;
    std::int64_t first;
    std::int64_t count;
};

struct WeightName {
    std::int64_t layer = -1;
    std::string kind;  // "attn_q", "ffn_down", ...
};

// "blk.3.attn_q.weight" -> {3, "attn_q"}; nullopt for names outside the blocks.
std::optional<WeightName> parse_weight_name(const std::string& name) {
    constexpr std::string_view kPrefix = "blk.", kSuffix = ".weight";
    if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return std::nullopt;
    const std::size_t dot = name.find('.', kPrefix.size());
    if (dot == std::string::npos) return std::nullopt;
    WeightName parsed;
    const auto [end, ec] = std::from_chars(name.data() + kPrefix.size(), name.data() + dot, parsed.layer);
    if (ec != std::errc{} || end != name.data() + dot) return std::nullopt;
    parsed.kind = name.substr(dot + 1, name.size() - dot - 1 - kSuffix.size());
    return parsed;
}

// Where an adapted weight's output goes in the forward pass; empty for a weight forge does
// not adapt (experts, the router, norms, the head). Fused phi3 tensors split as weights.cpp cuts them.
std::vector<ProjectionRows> projections_of(const gguf::GgufFile& base, const Hparams& h, const WeightName& w,
                                           std::int64_t n_out) {
    if (w.kind == "attn_q") return {{Projection::Q, 0, n_out}};
    if (w.kind == "attn_k") return {{Projection::K, 0, n_out}};
    if (w.kind == "attn_v") return {{Projection::V, 0, n_out}};
    if (w.kind == "attn_output") return {{Projection::O, 0, n_out}};
    if (w.kind == "ffn_gate") return {{Projection::Gate, 0, n_out}};
    if (w.kind == "ffn_down") return {{Projection::Down, 0, n_out}};
    if (w.kind == "attn_qkv") {
        return {{Projection::Q, 0, h.q_width()},
                {Projection::K, h.q_width(), h.kv_width()},
                {Projection::V, h.q_width() + h.kv_width(), h.kv_width()}};
    }
    if (w.kind == "ffn_up") {
        const bool fused = base.find_tensor(fmt::format("blk.{}.ffn_gate.weight", w.layer)) == nullptr &&
                           n_out == 2 * h.n_ff;
        if (fused) return {{Projection::Gate, 0, h.n_ff}, {Projection::Up, h.n_ff, h.n_ff}};
        return {{Projection::Up, 0, n_out}};
    }
    return {};
}

}  // namespace

LoraSpec parse_lora_spec(const std::string& text) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos) return {text, 1.0f};
    LoraSpec spec{text.substr(0, colon), 1.0f};
    const std::string scale = text.substr(colon + 1);
    const auto [end, ec] = std::from_chars(scale.data(), scale.data() + scale.size(), spec.scale);
    check(!spec.path.empty() && ec == std::errc{} && end == scale.data() + scale.size() && std::isfinite(spec.scale),
          "--lora '{}': expected FILE.gguf or FILE.gguf:SCALE with a number for SCALE", text);
    return spec;
}

LoraStack LoraStack::load(const gguf::GgufFile& base, const Hparams& hparams, std::span<const LoraSpec> specs) {
    LoraStack stack;
    stack.layers_.resize(static_cast<std::size_t>(hparams.n_layer));
    for (const LoraSpec& spec : specs) {
        const LoraAdapter adapter = read_lora_adapter(spec.path);
        check_format(adapter.architecture == hparams.arch_name,
                     "{}: the adapter is for a {} model, but {} is a {} model", spec.path, adapter.architecture,
                     base.source(), hparams.arch_name);
        const std::size_t index = stack.paths_.size();
        stack.paths_.push_back(spec.path);
        stack.default_scales_.push_back(spec.scale);
        for (const auto& [name, pair] : adapter.weights) {
            stack.add(index, base, hparams, name, pair, adapter.alpha_over_rank());
        }
    }
    return stack;
}

void LoraStack::add(std::size_t adapter, const gguf::GgufFile& base, const Hparams& hparams, const std::string& name,
                    const LowRankPair& pair, float alpha_over_rank) {
    const std::string& path = paths_[adapter];
    const gguf::TensorInfo* weight = base.find_tensor(name);
    check_format(weight != nullptr, "{}: the adapter adapts {}, which {} does not have", path, name, base.source());
    const Shape shape = weight->shape();
    const std::optional<WeightName> parsed = parse_weight_name(name);
    const std::vector<ProjectionRows> parts =
        parsed && shape.rank() == 2 ? projections_of(base, hparams, *parsed, shape[0]) : std::vector<ProjectionRows>{};
    check_format(!parts.empty() && parsed->layer < hparams.n_layer,
                 "{}: the adapter adapts {}; forge applies adapters to attention q, k, v, output and the dense "
                 "ffn gate, up, down weights only",
                 path, name);
    const std::int64_t n_out = shape[0], n_in = shape[1];
    check_format(pair.a.shape()[1] == n_in && pair.b.shape()[0] == n_out,
                 "{}: {}.lora_a has GGUF dims [{}, {}] and .lora_b [{}, {}], which do not fit the base weight "
                 "[{}, {}] (expected lora_a [{}, r], lora_b [r, {}])",
                 path, name, pair.a.shape()[1], pair.a.shape()[0], pair.b.shape()[1], pair.b.shape()[0], n_in, n_out,
                 n_in, n_out);
    for (const ProjectionRows& part : parts) {
        LowRankDelta delta{adapter, {pair.a, {}, nullptr}, {pair.b.narrow(0, part.first, part.count), {}, nullptr},
                           alpha_over_rank};
        layers_[static_cast<std::size_t>(parsed->layer)][static_cast<std::size_t>(part.projection)].push_back(
            std::move(delta));
    }
    max_rank_ = std::max(max_rank_, pair.rank());
}

std::span<const LowRankDelta> LoraStack::deltas(std::int64_t layer, Projection projection) const {
    return layers_[static_cast<std::size_t>(layer)][static_cast<std::size_t>(projection)];
}

}  // namespace forge::llm::lora
