// The llama-quantize policy; comments name the llama.cpp function each piece mirrors.
#include "models/llm/quant_mixture.h"

#include "core/error.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace forge::llm {

namespace {

// LLAMA_FTYPE_* ids (llama.h) for the file types forge can write. Q2_K_S is left out: llama.cpp
// refuses it without an importance matrix, and forge has none.
constexpr std::array kFileTypes = {
    FileType{"F32", 0, DType::F32},     FileType{"F16", 1, DType::F16},     FileType{"BF16", 32, DType::BF16},
    FileType{"Q4_0", 2, DType::Q4_0},   FileType{"Q4_1", 3, DType::Q4_1},   FileType{"Q5_0", 8, DType::Q5_0},
    FileType{"Q5_1", 9, DType::Q5_1},   FileType{"Q8_0", 7, DType::Q8_0},   FileType{"Q2_K", 10, DType::Q2_K},
    FileType{"Q3_K_S", 11, DType::Q3_K}, FileType{"Q3_K_M", 12, DType::Q3_K},
    FileType{"Q3_K_L", 13, DType::Q3_K}, FileType{"Q4_K_S", 14, DType::Q4_K}, FileType{"Q4_K_M", 15, DType::Q4_K},
    FileType{"Q5_K_S", 16, DType::Q5_K}, FileType{"Q5_K_M", 17, DType::Q5_K}, FileType{"Q6_K", 18, DType::Q6_K},
    FileType{"TQ1_0", 36, DType::TQ1_0}, FileType{"TQ2_0", 37, DType::TQ2_0},
};

std::string upper(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

enum class Category { TokenEmbd, AttnQ, AttnV, AttnK, AttnQkv, AttnKvB, AttnOutput, FfnUp, FfnGate, FfnDown, Output, Other };

// tensor_get_category
Category category_of(std::string_view name) {
    if (name == "output.weight") return Category::Output;
    if (name == "token_embd.weight" || name == "per_layer_token_embd.weight") return Category::TokenEmbd;
    if (contains(name, "attn_qkv.weight")) return Category::AttnQkv;
    if (contains(name, "attn_kv_b.weight")) return Category::AttnKvB;
    if (contains(name, "attn_v.weight")) return Category::AttnV;
    if (contains(name, "attn_k.weight")) return Category::AttnK;
    if (contains(name, "attn_q.weight")) return Category::AttnQ;
    if (contains(name, "attn_output.weight")) return Category::AttnOutput;
    if (contains(name, "ffn_up")) return Category::FfnUp;
    if (contains(name, "ffn_gate")) return Category::FfnGate;
    if (contains(name, "ffn_down")) return Category::FfnDown;
    return Category::Other;
}

bool is_attn_v_like(Category c) { return c == Category::AttnV || c == Category::AttnQkv || c == Category::AttnKvB; }

// tensor_allows_quantization
bool allows_quantization(const TensorFacts& t) {
    if (t.dims.size() < 2) return false;
    const std::string_view n = t.name;
    if (!ends_with(n, "weight") || contains(n, "_norm.weight")) return false;
    static constexpr std::string_view kKept[] = {
        "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel", "per_layer_model_proj", "ssm_conv1d",
        "shortconv.conv.weight", "indexer.k_proj.weight", "indexer.q_proj.weight", "time_mix_first.weight",
        "time_mix_w0.weight", "time_mix_w1.weight", "time_mix_w2.weight", "time_mix_v0.weight", "time_mix_v1.weight",
        "time_mix_v2.weight", "time_mix_a0.weight", "time_mix_a1.weight", "time_mix_a2.weight", "time_mix_g1.weight",
        "time_mix_g2.weight", "time_mix_decay_w1.weight", "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight",
        "attn_rel_b.weight", ".position_embd", "sam.pos_embd", "sam.neck.", "sam.net_", ".rel_pos", ".patch_embd",
        ".patch_merger", "a.rvq.codebook", "mm.a.code_embd"};
    for (const auto part : kKept) {
        if (contains(n, part)) return false;
    }
    return n != "position_embd.weight" && n != "token_types.weight";
}

// tensor_type_fallback: the block-32 type each block-256 type gives way to.
// (A lookup over a few types, not a switch: switches over DType list every type.)
DType fallback_for(DType t) {
    switch (t) {
        case DType::Q2_K: case DType::Q3_K: case DType::TQ1_0: case DType::TQ2_0: return DType::Q4_0;
        case DType::Q4_K: return DType::Q5_0;
        case DType::Q5_K: return DType::Q5_1;
        case DType::Q6_K: return DType::Q8_0;
        // Every other type falls back to f16 (llama.cpp's default case).
        case DType::F32: case DType::F16: case DType::BF16: case DType::F64: case DType::I8: case DType::I16:
        case DType::I32: case DType::I64: case DType::U8:
        case DType::Q4_0: case DType::Q4_1: case DType::Q5_0: case DType::Q5_1: case DType::Q8_0: case DType::Q8_1:
        case DType::Q8_K: case DType::IQ2_XXS: case DType::IQ2_XS: case DType::IQ3_XXS: case DType::IQ1_S:
        case DType::IQ4_NL: case DType::IQ3_S: case DType::IQ2_S: case DType::IQ4_XS: case DType::IQ1_M:
        case DType::MXFP4: return DType::F16;
    }
    return DType::F16;
}

bool use_more_bits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

}  // namespace

namespace {

// "blk.12.attn_q.weight" -> 12; -1 for tensors outside the blocks (as sscanf("blk.%d.") fails).
int layer_of(std::string_view name) {
    if (name.substr(0, 4) != "blk.") return -1;
    std::size_t i = 4;
    int layer = 0;
    bool digits = false;
    for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i, digits = true) layer = layer * 10 + (name[i] - '0');
    return digits && i < name.size() && name[i] == '.' ? layer : -1;
}

}  // namespace

std::vector<std::size_t> llama_tensor_order(const std::vector<TensorFacts>& tensors) {
    std::vector<std::size_t> order(tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const int la = layer_of(tensors[a].name), lb = layer_of(tensors[b].name);
        return la != lb ? la < lb : tensors[a].name < tensors[b].name;
    });
    return order;
}

std::optional<FileType> file_type_from_name(std::string_view name) {
    std::string wanted = upper(name);
    if (wanted == "Q3_K") wanted = "Q3_K_M";  // llama-quantize's aliases
    if (wanted == "Q4_K") wanted = "Q4_K_M";
    if (wanted == "Q5_K") wanted = "Q5_K_M";
    for (const auto& t : kFileTypes) {
        if (t.name == wanted) return t;
    }
    return std::nullopt;
}

std::vector<std::string_view> file_type_names() {
    std::vector<std::string_view> names;
    for (const auto& t : kFileTypes) names.push_back(t.name);
    return names;
}

Mixture::Mixture(FileType type, bool pure, ModelFacts model, const std::vector<TensorFacts>& tensors)
    : type_(type), pure_(pure), model_(std::move(model)) {
    // The preliminary pass of llama_model_quantize_impl: count layers' tensors, spot output.weight.
    for (const auto& t : tensors) {
        const Category c = category_of(t.name);
        if (c == Category::Output) tied_embeddings_ = false;
        if (is_attn_v_like(c)) ++n_attention_wv_;
        if (c == Category::FfnDown) ++n_ffn_down_;
    }
}

TypeChoice Mixture::choose(const TensorFacts& tensor) {
    if (!allows_quantization(tensor)) return {tensor.dtype, false, {}};
    DType type = type_.base;
    if (is_quantized(type) && !pure_) type = choose_mixture(tensor, type);
    if (!is_quantized(type)) return {type, type != tensor.dtype, {}};
    // tensor_type_fallback
    const std::int64_t columns = tensor.dims[0];
    if (columns % dtype_traits(type).block_size == 0) return {type, true, {}};
    DType fallback = fallback_for(type);
    if (columns % dtype_traits(fallback).block_size != 0) fallback = DType::F16;
    return {fallback, true,
            fmt::format("{} columns are not a multiple of the {} block size {}: falling back to {}", columns,
                        dtype_name(type), dtype_traits(type).block_size, dtype_name(fallback))};
}

// llama_tensor_get_type_impl, for the non-IQ file types.
DType Mixture::choose_mixture(const TensorFacts& tensor, DType type) {
    const Category c = category_of(tensor.name);
    const std::string_view ft = type_.name;
    const bool falcon = model_.arch == "falcon";
    const int n_gqa = model_.n_head_kv > 0 ? model_.n_head / model_.n_head_kv : 1;
    if (c == Category::Output || (tied_embeddings_ && c == Category::TokenEmbd)) {
        const std::int64_t columns = tensor.dims[0];
        if (falcon || columns % dtype_traits(type).block_size != 0) return DType::Q8_0;
        return type != DType::Q8_0 ? DType::Q6_K : type;
    }
    if (c == Category::TokenEmbd) {
        return (ft == "TQ1_0" || ft == "TQ2_0") ? DType::Q4_K : type;
    }
    if (is_attn_v_like(c)) {
        if (ft == "Q2_K") type = n_gqa >= 4 ? DType::Q4_K : DType::Q3_K;
        else if (ft == "Q3_K_M") type = i_attention_wv_ < 2 ? DType::Q5_K : DType::Q4_K;
        else if (ft == "Q3_K_L") type = DType::Q5_K;
        else if ((ft == "Q4_K_M" || ft == "Q5_K_M") && use_more_bits(i_attention_wv_, n_attention_wv_)) type = DType::Q6_K;
        else if (ft == "Q4_K_S" && i_attention_wv_ < 4) type = DType::Q5_K;
        // llama.cpp's LLM_TYPE_70B (llama with 80 layers): 8 heads share attn_v, so spend bits on it.
        if (model_.arch == "llama" && model_.n_layer == 80 && (type == DType::Q3_K || type == DType::Q4_K)) type = DType::Q5_K;
        if (model_.n_expert == 8) type = DType::Q8_0;
        ++i_attention_wv_;
        return type;
    }
    if (c == Category::AttnK) return model_.n_expert == 8 ? DType::Q8_0 : type;
    if (c == Category::FfnDown) {
        const int i = i_ffn_down_++, n = n_ffn_down_;
        if (ft == "Q2_K") return DType::Q3_K;
        if (ft == "Q3_K_M") {
            return i < n / 16 ? DType::Q5_K : (!falcon || use_more_bits(i, n)) ? DType::Q4_K : DType::Q3_K;
        }
        if (ft == "Q3_K_L") return falcon ? DType::Q4_K : DType::Q5_K;
        if (ft == "Q4_K_M") {
            if (falcon) return i < n / 16 ? DType::Q6_K : use_more_bits(i, n) ? DType::Q5_K : DType::Q4_K;
            return use_more_bits(i, n) ? DType::Q6_K : type;
        }
        if (ft == "Q5_K_M" && use_more_bits(i, n)) return DType::Q6_K;
        if (ft == "Q4_K_S" && !falcon && i < n / 8) return DType::Q5_K;
        return type;
    }
    if (c == Category::AttnOutput) {
        if (falcon) return ft == "Q3_K_L" ? DType::Q4_K : type;
        if (model_.n_expert == 8) {
            return (ft == "Q2_K" || ft == "Q3_K_S" || ft == "Q3_K_M" || ft == "Q4_K_S" || ft == "Q4_K_M") ? DType::Q5_K : type;
        }
        if (ft == "Q2_K") return DType::Q3_K;
        if (ft == "Q3_K_M") return DType::Q4_K;
        if (ft == "Q3_K_L") return DType::Q5_K;
        return type;
    }
    if (c == Category::AttnQkv) {
        if (ft == "Q3_K_M" || ft == "Q3_K_L") return DType::Q4_K;
        if (ft == "Q4_K_M") return DType::Q5_K;
        if (ft == "Q5_K_M") return DType::Q6_K;
        return type;
    }
    if (c == Category::FfnGate) ++i_ffn_gate_;
    if (c == Category::FfnUp) ++i_ffn_up_;
    return type;
}

}  // namespace forge::llm
