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

// `prefix`.weight [n_expert, n_out, n_in] of a GGUF (llama.cpp's ne order reversed), one
// Linear per expert; with_bias: also `prefix`.bias [n_expert, n_out] (gpt-oss), each expert's
// row its Linear's bias, so linear() adds it as llama.cpp's ggml_add_id does after
// mul_mat_id. Errors name the tensor (missing, another shape, a dtype forge cannot decode).
ExpertLinears load_expert_linears(const gguf::TensorLoader& load, const std::string& prefix, std::int64_t n_expert,
                                  std::int64_t n_out, std::int64_t n_in, bool with_bias = false);

// One of a row's chosen experts and its weight in the row's mixture.
struct ExpertChoice {
    std::int32_t expert = 0;
    float weight = 0.0f;
};

// How a router's logits become the chosen experts' weights (llama.cpp's
// llama_expert_gating_func_type):
// - SoftmaxThenTopK (its SOFTMAX with norm_w; Qwen3-MoE, Mixtral, OLMoE): softmax over every
//   expert, the k most probable, each weighted by its probability over the sum of the k chosen
//   (the sum clamped below at 2^-14, as llama.cpp does against a division by zero);
// - TopKThenSoftmax (its SOFTMAX_WEIGHT; gpt-oss): the k largest logits, weighted by the
//   softmax over those k alone.
enum class ExpertGating { SoftmaxThenTopK, TopKThenSoftmax };

// For each of `rows` rows of router logits [rows, n_expert] (overwritten: SoftmaxThenTopK
// leaves the probabilities there), the k chosen experts, largest first (ties: the lower index
// first), with their weights. `choices` holds [rows, k].
void route_top_k(std::span<float> logits, std::int64_t rows, std::int64_t n_expert, std::int64_t k,
                 std::span<ExpertChoice> choices, ExpertGating gating = ExpertGating::SoftmaxThenTopK);

}  // namespace forge::infer
