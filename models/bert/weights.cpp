#include "models/bert/weights.h"

#include "core/error.h"
#include "core/gguf/tensor_loader.h"
#include "core/quant/quantize.h"

#include <fmt/format.h>

namespace forge::bert {

namespace {

using infer::load_linear;

Norm load_norm(const gguf::TensorLoader& load, const std::string& prefix, std::int64_t n) {
    return {load.vector_f32(prefix + ".weight", n), load.vector_f32(prefix + ".bias", n)};
}

// A small table the encoder adds row by row ([rows, n_embd]), widened to f32 once when a
// converter stored it as f16 or quantized it.
Tensor load_table_f32(const gguf::TensorLoader& load, const std::string& name, std::int64_t rows, std::int64_t cols) {
    const Tensor table = load.raw(name, Shape{rows, cols});
    return table.dtype() == DType::F32 ? table : quant::dequantize(table);
}

BlockWeights load_block(const gguf::TensorLoader& load, const Hparams& h, std::int64_t layer) {
    const std::string p = fmt::format("blk.{}.", layer);
    const bool bert = h.arch == Arch::Bert;
    const std::int64_t e = h.n_embd;
    BlockWeights b;
    if (bert) {
        b.wq = load_linear(load, p + "attn_q", e, e, true);
        b.wk = load_linear(load, p + "attn_k", e, e, true);
        b.wv = load_linear(load, p + "attn_v", e, e, true);
    } else {
        b.wqkv = load_linear(load, p + "attn_qkv", 3 * e, e, false);
    }
    b.wo = load_linear(load, p + "attn_output", e, e, bert);
    b.attn_out_norm = load_norm(load, p + "attn_output_norm", e);
    if (!bert) b.ffn_gate = load_linear(load, p + "ffn_gate", h.n_ff, e, false);
    b.ffn_up = load_linear(load, p + "ffn_up", h.n_ff, e, bert);
    b.ffn_down = load_linear(load, p + "ffn_down", e, h.n_ff, bert);
    b.layer_out_norm = load_norm(load, p + "layer_output_norm", e);
    return b;
}

}  // namespace

Weights load_weights(const gguf::GgufFile& file, const Hparams& h) {
    const gguf::TensorLoader load(file);
    Weights w;
    w.token_embd = load.raw("token_embd.weight", Shape{h.n_vocab, h.n_embd});
    w.token_types = load_table_f32(load, "token_types.weight", h.n_token_types, h.n_embd);
    if (h.arch == Arch::Bert) w.position_embd = load_table_f32(load, "position_embd.weight", h.n_ctx, h.n_embd);
    w.embd_norm = load_norm(load, "token_embd_norm", h.n_embd);
    w.blocks.reserve(static_cast<std::size_t>(h.n_layer));
    for (std::int64_t layer = 0; layer < h.n_layer; ++layer) w.blocks.push_back(load_block(load, h, layer));
    if (h.pooling == llm::Pooling::Rank) {
        check_format(load.has("cls.output.weight"), "{}: pooling_type rank needs the classifier head, and tensor "
                     "'cls.output.weight' is missing", file.source());
        if (load.has("cls.weight")) w.cls = load_linear(load, "cls", h.n_embd, h.n_embd, load.has("cls.bias"));
        w.cls_output = load_linear(load, "cls.output", 1, h.n_embd, load.has("cls.output.bias"));
    }
    return w;
}

}  // namespace forge::bert
