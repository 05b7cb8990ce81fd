// The experts of a mixture-of-experts layer and the router that picks them, on raw buffers.
//
// A GGUF stores one layer's experts of one projection as a 3-D tensor [n_expert, n_out, n_in]
// (llama.cpp's ffn_{gate,up,down}_exps); each expert is a contiguous [n_out, n_in] slice of
// it. ExpertLinears keeps them as one infer::Linear per expert, each a view of its slice, so
// an expert multiplies through linear() like any dense layer: the same kernels, and where the
// build interleaves that format (core/infer/interleaved_weights.h) each slice is interleaved
// on its own (the layout groups 16 rows of one matrix; one expert's rows never share a group
// with another's, so the slices stay independent and an expert's product reads only its own
// bytes). Running only the chosen experts' rows is then just calling linear() on them.
#pragma once

#include "core/infer/linear.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace forge::gguf {
class TensorLoader;
}

namespace forge::infer {

struct ExpertLinears {
    Tensor stacked;              // [n_expert, n_out, n_in], what the experts view
    std::vector<Linear> experts;
    std::int64_t size() const { return static_cast<std::int64_t>(experts.size()); }
    const Linear& operator[](std::int64_t e) const { return experts[static_cast<std::size_t>(e)]; }
};

// `name` [n_expert, n_out, n_in] of a GGUF (llama.cpp's ne order reversed), one Linear per
// expert. Errors name the tensor (missing, another shape, a dtype forge cannot decode).
ExpertLinears load_expert_linears(const gguf::TensorLoader& load, const std::string& name, std::int64_t n_expert,
                                  std::int64_t n_out, std::int64_t n_in);

// One of a row's chosen experts and its weight in the row's mixture.
struct ExpertChoice {
    std::int32_t expert = 0;
    float weight = 0.0f;
};

// Softmax routing with renormalised top-k, as llama.cpp's build_moe_ffn for Qwen3-MoE (and
// Mixtral, OLMoE): for each of `rows` rows of router logits [rows, n_expert] (overwritten with
// the probabilities), the k most probable experts, most probable first (ties: the lower index
// first), each weighted by its probability over the sum of the k chosen (the sum clamped
// below at 2^-14, as llama.cpp does against a division by zero). `choices` holds [rows, k].
void route_top_k(std::span<float> logits, std::int64_t rows, std::int64_t n_expert, std::int64_t k,
                 std::span<ExpertChoice> choices);

}  // namespace forge::infer
