// Which type each tensor of a llama-family model gets when it is quantized (`forge quantize`):
// llama.cpp's llama-quantize policy, which works by llama.cpp's tensor names (attn_v, ffn_down,
// output, token_embd ...), so it belongs with the LLM family, not the tensor engine's quant/ —
// llama-quantize policy (src/llama-quant.cpp: tensor_allows_quantization, llama_tensor_get_type and
// tensor_type_fallback), for the file types forge can encode.
//
//  * only 2-D and 3-D tensors named "*weight" are quantized; norms, biases and other 1-D
//    tensors keep their type, as do MoE routers, positional embeddings and a few small ones;
//  * the output tensor (or token_embd when it is tied to the output) gets Q6_K unless the
//    target is Q8_0 — ggml's choice for the most sensitive matrix;
//  * the _M/_L/_S mixtures bump attn_v, ffn_down, attn_output ... as llama.cpp does;
//  * `pure` skips the mixtures and output rules: every quantizable tensor gets the type;
//  * a tensor whose row length (ne[0], its columns) is not a multiple of the type's block
//    falls back (Q4_K -> Q5_0, Q6_K -> Q8_0, ...; F16 if even that does not fit).
#pragma once

#include "core/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

// llama.cpp's llama_ftype: what `forge quantize TYPE` names, stored as general.file_type.
struct FileType {
    std::string_view name;  // as llama-quantize spells it: "Q4_K_M"
    int id;                 // LLAMA_FTYPE_* value
    DType base;             // the type most tensors get
};

// Parse a llama-quantize type name (case-insensitive; Q4_K means Q4_K_M, as in llama-quantize).
std::optional<FileType> file_type_from_name(std::string_view name);
std::vector<std::string_view> file_type_names();  // those forge supports

// What the policy needs to know about the model (from its GGUF metadata).
struct ModelFacts {
    std::string arch;
    int n_layer = 0;
    int n_head = 0;
    int n_head_kv = 0;
    int n_expert = 0;
};

struct TensorFacts {
    std::string name;
    DType dtype;
    std::vector<std::int64_t> dims;  // GGUF order, dims[0] = row length
};

struct TypeChoice {
    DType dtype;
    bool quantized;        // false: the tensor is kept as it is
    std::string fallback;  // non-empty: why the policy's type did not fit the row length
};

// The order llama-quantize writes tensors in (llama_model_loader's weight_name_comparer):
// tensors outside "blk.N." first, then by layer number, each group sorted by name. The
// mixture's per-layer counters must also see the tensors in this order.
std::vector<std::size_t> llama_tensor_order(const std::vector<TensorFacts>& tensors);

// The policy over a whole model: construct with every tensor (in file order) so that the
// per-layer counters see them all, then ask for each tensor in the same order.
class Mixture {
public:
    Mixture(FileType type, bool pure, ModelFacts model, const std::vector<TensorFacts>& tensors);
    TypeChoice choose(const TensorFacts& tensor);

private:
    DType choose_mixture(const TensorFacts& tensor, DType type);

    FileType type_;
    bool pure_;
    ModelFacts model_;
    bool tied_embeddings_ = true;
    int n_attention_wv_ = 0, n_ffn_down_ = 0;
    int i_attention_wv_ = 0, i_ffn_down_ = 0, i_ffn_gate_ = 0, i_ffn_up_ = 0;
};

}  // namespace forge::llm
