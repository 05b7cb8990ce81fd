#include "models/llm/weights.h"

#include "core/error.h"
#include "core/quant/quantize.h"

#include <fmt/format.h>

namespace forge::llm {

namespace {

class TensorLoader {
public:
    explicit TensorLoader(const gguf::GgufFile& file) : file_(file) {}

    // The tensor `name` with forge shape `shape` (outermost first), as stored.
    Tensor raw(const std::string& name, const Shape& shape) const {
        const gguf::TensorInfo* info = file_.find_tensor(name);
        if (info == nullptr) throw FormatError(fmt::format("{}: tensor {} is missing", file_.source(), name));
        if (info->shape() != shape) {
            throw FormatError(fmt::format("{}: tensor {} has shape {}, expected {}", file_.source(), name,
                                          info->shape().to_string(), shape.to_string()));
        }
        if (!quant::can_decode(info->dtype)) {
            throw FormatError(fmt::format("{}: tensor {} has dtype {}, which forge cannot decode", file_.source(), name,
                                          dtype_name(info->dtype)));
        }
        return file_.tensor(*info);
    }
    bool has(const std::string& name) const { return file_.find_tensor(name) != nullptr; }

    // A 1-D parameter (norm weight, bias) as f32.
    Tensor vector(const std::string& name, std::int64_t size) const {
        const Tensor t = raw(name, Shape{size});
        return t.dtype() == DType::F32 ? t : quant::dequantize(t);
    }

    // A matrix [n_out, n_in] in a dtype the linear layer multiplies directly.
    Tensor matrix(const std::string& name, std::int64_t n_out, std::int64_t n_in) const {
        const Tensor t = raw(name, Shape{n_out, n_in});
        const bool direct = t.dtype() == DType::F32 || t.dtype() == DType::F16 || quant::has_dot_kernel(t.dtype());
        return direct ? t : quant::dequantize(t);
    }

    Linear linear(const std::string& prefix, std::int64_t n_out, std::int64_t n_in, bool with_bias) const {
        Linear layer{matrix(prefix + ".weight", n_out, n_in), Tensor{}, nullptr};
        // Nothing reads the original again (a tied head's embedding rows come from the copy),
        // so its pages are given back: peak memory stays about one copy of the weights.
        layer.interleaved = infer::InterleavedWeights::from(layer.weight, file_.mapped());
        if (with_bias) layer.bias = vector(prefix + ".bias", n_out);
        return layer;
    }

private:
    const gguf::GgufFile& file_;
};

BlockWeights load_block(const TensorLoader& load, const Hparams& h, std::int64_t layer) {
    const std::string p = fmt::format("blk.{}.", layer);
    BlockWeights b;
    b.attn_norm = load.vector(p + "attn_norm.weight", h.n_embd);
    b.wq = load.linear(p + "attn_q", h.q_width(), h.n_embd, h.qkv_bias);
    b.wk = load.linear(p + "attn_k", h.kv_width(), h.n_embd, h.qkv_bias);
    b.wv = load.linear(p + "attn_v", h.kv_width(), h.n_embd, h.qkv_bias);
    b.wo = load.linear(p + "attn_output", h.n_embd, h.q_width(), false);
    if (h.qk_norm) {
        b.q_norm = load.vector(p + "attn_q_norm.weight", h.head_dim);
        b.k_norm = load.vector(p + "attn_k_norm.weight", h.head_dim);
    }
    b.ffn_norm = load.vector(p + "ffn_norm.weight", h.n_embd);
    b.ffn_gate = load.linear(p + "ffn_gate", h.n_ff, h.n_embd, false);
    b.ffn_up = load.linear(p + "ffn_up", h.n_ff, h.n_embd, false);
    b.ffn_down = load.linear(p + "ffn_down", h.n_embd, h.n_ff, false);
    return b;
}

}  // namespace

ModelWeights load_weights(const gguf::GgufFile& file, const Hparams& h) {
    const TensorLoader load(file);
    ModelWeights w;
    w.token_embd = load.raw("token_embd.weight", Shape{h.n_vocab, h.n_embd});
    w.blocks.reserve(static_cast<std::size_t>(h.n_layer));
    for (std::int64_t layer = 0; layer < h.n_layer; ++layer) w.blocks.push_back(load_block(load, h, layer));
    w.output_norm = load.vector("output_norm.weight", h.n_embd);
    // Without output.weight the head reuses the embedding table (tied embeddings).
    w.tied_output = !load.has("output.weight");
    w.output = load.linear(w.tied_output ? "token_embd" : "output", h.n_vocab, h.n_embd, false);
    // Llama 3.1-style RoPE scaling: pair i's frequency divided by rope_freqs[i].
    if (load.has("rope_freqs.weight")) w.rope_freqs = load.vector("rope_freqs.weight", h.rope.n_rot / 2);
    return w;
}

}  // namespace forge::llm
