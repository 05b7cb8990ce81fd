#include "models/llm/lora/lora_model.h"

#include "core/autograd/ag.h"
#include "core/autograd/ops/frozen_linear.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/ops/recompute.h"
#include "core/error.h"
#include "core/quant/quantize.h"
#include "core/random/counter_rng.h"
#include "nn/attention.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <memory>
#include <utility>

namespace forge::llm::lora {
namespace {

struct TargetName {
    Target target;
    std::string_view flag;  // --targets
    std::string_view gguf;  // blk.N.<gguf>.weight
};

constexpr std::array<TargetName, 7> kTargets = {{{Target::Q, "q", "attn_q"},
                                                 {Target::K, "k", "attn_k"},
                                                 {Target::V, "v", "attn_v"},
                                                 {Target::O, "o", "attn_output"},
                                                 {Target::Gate, "gate", "ffn_gate"},
                                                 {Target::Up, "up", "ffn_up"},
                                                 {Target::Down, "down", "ffn_down"}}};

const TargetName& name_of(Target t) { return kTargets[static_cast<std::size_t>(t)]; }

bool contains(const std::vector<Target>& targets, Target t) {
    return std::find(targets.begin(), targets.end(), t) != targets.end();
}

// What the trainable graph computes of the llama family; anything else is refused by name
// rather than trained on a forward that differs from inference.
void check_trainable(const Hparams& h, const ModelWeights& w, const std::string& source) {
    const bool family = h.arch == Arch::Llama || h.arch == Arch::Qwen2 || h.arch == Arch::Qwen3 || h.arch == Arch::Smollm3;
    check(family && !h.has_experts(),
          "--model {}: LoRA training runs the dense llama family (llama, qwen2, qwen3, smollm3), not {}", source,
          h.arch_name);
    check(!w.rope_freqs.defined() && h.rope.ext_factor == 0.0f && h.rope.mscale == 1.0f,
          "--model {}: RoPE scaling (rope_freqs or YaRN) is not supported by LoRA training yet", source);
}

const infer::Linear& matrix(const BlockWeights& w, Target t) {
    switch (t) {
        case Target::Q: return w.wq;
        case Target::K: return w.wk;
        case Target::V: return w.wv;
        case Target::O: return w.wo;
        case Target::Gate: return w.ffn_gate;
        case Target::Up: return w.ffn_up;
        case Target::Down: return w.ffn_down;
    }
    fail("unknown LoRA target");
}

}  // namespace

Checkpointing parse_checkpointing(std::string_view name) {
    if (name == "full") return Checkpointing::Full;
    if (name == "matmuls") return Checkpointing::Matmuls;
    if (name == "off") return Checkpointing::Off;
    fail("'{}' is not a checkpointing mode (give full, matmuls or off)", name);
}

std::string_view checkpointing_name(Checkpointing c) {
    switch (c) {
        case Checkpointing::Full: return "full";
        case Checkpointing::Matmuls: return "matmuls";
        case Checkpointing::Off: return "off";
    }
    fail("unknown checkpointing mode");
}

std::vector<Target> parse_targets(std::string_view list) {
    std::vector<Target> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string_view item = list.substr(start, comma - start);
        const auto it = std::find_if(kTargets.begin(), kTargets.end(), [&](const TargetName& t) { return t.flag == item; });
        check(it != kTargets.end(), "'{}' is not a target (give any of q, k, v, o, gate, up, down)", item);
        check(!contains(out, it->target), "target '{}' is named twice", item);
        out.push_back(it->target);
        start = comma + 1;
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string target_names(const std::vector<Target>& targets) {
    std::string out;
    for (const Target t : targets) {
        if (!out.empty()) out += ',';
        out += name_of(t).flag;
    }
    return out;
}

LoraModel::LoraModel(const std::filesystem::path& base, const LoraSettings& settings)
    : file_(gguf::GgufFile::open(base.string())),
      hparams_(read_hparams(file_)),
      weights_(load_weights(file_, hparams_)),
      settings_(settings),
      params_(settings.seed) {
    check_trainable(hparams_, weights_, file_.source());
    check(settings.rank >= 1, "--rank {}: must be at least 1", settings.rank);
    check(!settings.targets.empty(), "--targets: name at least one matrix");
    for (std::int64_t layer = 0; layer < hparams_.n_layer; ++layer) {
        Factors f;
        for (const Target t : settings.targets) {
            const infer::Linear& w = matrix(weights_.blocks[static_cast<std::size_t>(layer)], t);
            const std::string name = fmt::format("blk.{}.{}.weight", layer, name_of(t).gguf);
            const auto i = static_cast<std::size_t>(t);
            // kaiming_uniform_(a = sqrt(5)) on [r, n_in], as peft and llama.cpp's finetune start A.
            f.a[i] = params_.add(name + ".lora_a", Shape{settings.rank, w.n_in()}, nn::Init::fan_in_uniform(w.n_in()));
            f.b[i] = params_.add(name + ".lora_b", Shape{w.n_out(), settings.rank}, nn::Init::zeros());
        }
        factors_.push_back(std::move(f));
    }
}

std::vector<Tensor> LoraModel::flatten(const Factors& f) const {
    std::vector<Tensor> out;
    for (const Target t : settings_.targets) {
        out.push_back(f.a[static_cast<std::size_t>(t)]);
        out.push_back(f.b[static_cast<std::size_t>(t)]);
    }
    return out;
}

LoraModel::Factors LoraModel::unflatten(std::span<const Tensor> flat) const {
    Factors f;
    std::size_t k = 0;
    for (const Target t : settings_.targets) {
        f.a[static_cast<std::size_t>(t)] = flat[k++];
        f.b[static_cast<std::size_t>(t)] = flat[k++];
    }
    return f;
}

Tensor LoraModel::adapted(const infer::Linear& base, const Factors& f, Target t, const Tensor& x, std::uint64_t key,
                          bool training, Products* products) const {
    Tensor y;
    Tensor* kept = products ? &(*products)[static_cast<std::size_t>(t)] : nullptr;
    if (kept && kept->defined()) {
        y = ag::frozen_linear(x, base, std::exchange(*kept, Tensor{}));  // the recomputation: x is the forward's x
    } else {
        y = ag::frozen_linear(x, base);
        if (kept) *kept = y;
    }
    const Tensor& a = f.a[static_cast<std::size_t>(t)];
    if (!a.defined()) return y;
    const float p = training ? settings_.dropout : 0.0f;
    const Tensor dropped = p > 0.0f ? ag::dropout(x, p, random::stream_key(key, static_cast<std::uint64_t>(t)), true) : x;
    const Tensor low = ag::linear(ag::linear(dropped, a, Tensor{}), f.b[static_cast<std::size_t>(t)], Tensor{});
    return ag::add(y, ag::mul(low, settings_.alpha / static_cast<float>(settings_.rank)));
}

// Rows of token_embd as f32 (no gradient: the embedding is frozen). A tied head's table may
// have been interleaved at load; its rows are read from that copy.
Tensor LoraModel::embed(const Tensor& ids) const {
    const Tensor& table = weights_.token_embd;
    const std::int64_t d = hparams_.n_embd, n = ids.numel();
    const std::size_t row_bytes = dtype_bytes(table.dtype(), static_cast<std::size_t>(d));
    const infer::InterleavedWeights* packed = weights_.tied_output ? weights_.output.interleaved.get() : nullptr;
    Tensor x = Tensor::empty(Shape{ids.size(0), ids.size(1), d});
    std::vector<std::byte> copy(row_bytes);
    const Tensor flat = ids.contiguous();
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int32_t token = flat.data<std::int32_t>()[i];
        check(token >= 0 && token < hparams_.n_vocab, "token id {} is outside the vocabulary of {} tokens", token,
              hparams_.n_vocab);
        std::span<const std::byte> bytes(table.raw_data() + static_cast<std::size_t>(token) * row_bytes, row_bytes);
        if (packed) {
            packed->copy_row(token, copy);
            bytes = copy;
        }
        quant::dequantize_bytes(table.dtype(), bytes,
                                std::span<float>(x.data<float>() + i * d, static_cast<std::size_t>(d)));
    }
    return x;
}

Tensor LoraModel::block(std::int64_t layer, const Tensor& x, const Factors& f, std::uint64_t key, bool training,
                        Products* products) const {
    const Hparams& h = hparams_;
    const BlockWeights& w = weights_.blocks[static_cast<std::size_t>(layer)];
    const std::int64_t b = x.size(0), t = x.size(1);
    // Attention: q, k, v of rmsnorm(x), qwen3's per-head norms, RoPE, causal GQA, output projection.
    const Tensor xn = ag::rmsnorm(x, w.attn_norm, h.rms_eps);
    Tensor q = ag::reshape(adapted(w.wq, f, Target::Q, xn, key, training, products), Shape{b, t, h.n_head, h.head_dim});
    Tensor k = ag::reshape(adapted(w.wk, f, Target::K, xn, key, training, products), Shape{b, t, h.n_head_kv, h.head_dim});
    const Tensor v = ag::reshape(adapted(w.wv, f, Target::V, xn, key, training, products), Shape{b, t, h.n_head_kv, h.head_dim});
    if (h.qk_norm) {
        q = ag::rmsnorm(q, w.q_norm, h.rms_eps);
        k = ag::rmsnorm(k, w.k_norm, h.rms_eps);
    }
    const RopeConfig rope{.n_rot = h.rope.n_rot, .theta_base = h.rope.theta_base, .freq_scale = h.rope.freq_scale,
                          .mode = h.rope.mode};
    const Tensor mixed = nn::causal_self_attention(q, k, v, rope, h.rotates(layer));
    const Tensor mid = ag::add(x, adapted(w.wo, f, Target::O, mixed, key, training, products));
    // SwiGLU feed-forward of rmsnorm(mid).
    const Tensor hn = ag::rmsnorm(mid, w.ffn_norm, h.rms_eps);
    const Tensor gate = adapted(w.ffn_gate, f, Target::Gate, hn, key, training, products);
    const Tensor up = adapted(w.ffn_up, f, Target::Up, hn, key, training, products);
    return ag::add(mid, adapted(w.ffn_down, f, Target::Down, ag::mul(ag::silu(gate), up), key, training, products));
}

Tensor LoraModel::forward(const Tensor& ids, std::uint64_t dropout_key, bool training) const {
    return ag::frozen_linear(hidden(ids, dropout_key, training), head());
}

Tensor LoraModel::hidden(const Tensor& ids, std::uint64_t dropout_key, bool training) const {
    check(ids.rank() == 2 && ids.dtype() == DType::I32, "LoRA model input: want i32 ids [B, T], got {} {}",
          dtype_name(ids.dtype()), ids.shape().to_string());
    Tensor x = embed(ids);
    const Checkpointing mode = ag::grad_enabled() ? settings_.checkpointing : Checkpointing::Full;
    for (std::int64_t layer = 0; layer < hparams_.n_layer; ++layer) {
        const std::uint64_t key = random::stream_key(dropout_key, static_cast<std::uint64_t>(layer));
        const Factors& factors = factors_[static_cast<std::size_t>(layer)];
        if (mode == Checkpointing::Off) {
            x = block(layer, x, factors, key, training, nullptr);
            continue;
        }
        std::vector<Tensor> inputs = flatten(factors);
        inputs.insert(inputs.begin(), x);
        // Matmuls: the forward pass fills the products, the backward's recomputation takes them.
        auto products = mode == Checkpointing::Matmuls ? std::make_shared<Products>() : nullptr;
        x = ag::recompute(
            [this, layer, key, training, products](std::span<const Tensor> in) {
                return block(layer, in[0], unflatten(in.subspan(1)), key, training, products.get());
            },
            std::move(inputs));
    }
    return ag::rmsnorm(x, weights_.output_norm, hparams_.rms_eps);
}

LoraAdapter LoraModel::adapter() const {
    LoraAdapter out;
    out.architecture = hparams_.arch_name;
    out.alpha = settings_.alpha;
    for (const nn::Parameter& p : params_.all()) {
        const std::string_view name = p.name;
        const std::size_t dot = name.rfind('.');
        const std::string weight(name.substr(0, dot));
        if (name.substr(dot + 1) == "lora_a") out.weights[weight].a = p.value;
        else out.weights[weight].b = p.value;
    }
    return out;
}

}  // namespace forge::llm::lora
