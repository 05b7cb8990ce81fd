#include "core/infer/experts.h"

#include "core/error.h"
#include "core/gguf/tensor_loader.h"
#include "core/quant/quantize.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/softmax.h"

#include <algorithm>
#include <cmath>

namespace forge::infer {

ExpertLinears load_expert_linears(const gguf::TensorLoader& load, const std::string& prefix, std::int64_t n_expert,
                                  std::int64_t n_out, std::int64_t n_in, bool with_bias) {
    ExpertLinears layer{load.matrices(prefix + ".weight", n_expert, n_out, n_in), {}};
    Tensor biases;
    if (with_bias) {
        biases = load.raw(prefix + ".bias", Shape{n_expert, n_out});
        if (biases.dtype() != DType::F32) biases = quant::dequantize(biases);
    }
    layer.experts.reserve(static_cast<std::size_t>(n_expert));
    for (std::int64_t e = 0; e < n_expert; ++e) {
        Linear expert{layer.stacked.select(0, e), with_bias ? biases.select(0, e) : Tensor{}, nullptr};
        expert.interleaved = InterleavedWeights::for_file(expert.weight, load.file());
        layer.experts.push_back(std::move(expert));
    }
    return layer;
}

namespace {

// The k largest of `scores`, largest first (ties: the lower index first), as ggml's
// descending argsort keeps them; weights not set.
void choose_top_k(std::span<const float> probs, std::span<ExpertChoice> chosen) {
    const auto before = [&](std::int32_t a, std::int32_t b) {
        return probs[static_cast<std::size_t>(a)] > probs[static_cast<std::size_t>(b)] ||
               (probs[static_cast<std::size_t>(a)] == probs[static_cast<std::size_t>(b)] && a < b);
    };
    // Selection of the k best, kept sorted: k is small (8 of 128 for Qwen3-30B-A3B).
    std::size_t found = 0;
    for (std::int32_t e = 0; e < static_cast<std::int32_t>(probs.size()); ++e) {
        if (found == chosen.size() && !before(e, chosen.back().expert)) continue;
        std::size_t at = std::min(found, chosen.size() - 1);
        while (at > 0 && before(e, chosen[at - 1].expert)) {
            chosen[at] = chosen[at - 1];
            --at;
        }
        chosen[at].expert = e;
        found = std::min(found + 1, chosen.size());
    }
}

// SoftmaxThenTopK: probabilities in place, then the top k and their renormalised weights.
void route_row_renormalised(std::span<float> probs, std::span<ExpertChoice> chosen) {
    kernels::active::softmax(probs, 1.0f, probs.size(), probs);
    choose_top_k(probs, chosen);
    // As ggml: the sum in double (ggml_vec_sum_f32), rounded to float, clamped at f16's
    // smallest normal, then one float division per weight.
    double sum = 0.0;
    for (const ExpertChoice& c : chosen) sum += probs[static_cast<std::size_t>(c.expert)];
    const float divisor = std::max(static_cast<float>(sum), 6.103515625e-5f);
    for (ExpertChoice& c : chosen) c.weight = probs[static_cast<std::size_t>(c.expert)] / divisor;
}

// TopKThenSoftmax: the top k logits, then ggml_soft_max over those k (the largest first, so
// it is the max; the sum in double, one float multiply by its inverse).
void route_row_softmax_of_top_k(std::span<const float> logits, std::span<ExpertChoice> chosen) {
    choose_top_k(logits, chosen);
    const float max = logits[static_cast<std::size_t>(chosen.front().expert)];
    double sum = 0.0;
    for (ExpertChoice& c : chosen) {
        c.weight = std::exp(logits[static_cast<std::size_t>(c.expert)] - max);
        sum += c.weight;
    }
    const auto inverse = static_cast<float>(1.0 / sum);
    for (ExpertChoice& c : chosen) c.weight *= inverse;
}

}  // namespace

void route_top_k(std::span<float> logits, std::int64_t rows, std::int64_t n_expert, std::int64_t k,
                 std::span<ExpertChoice> choices, ExpertGating gating) {
    check(k >= 1 && k <= n_expert, "route_top_k: {} experts of {}", k, n_expert);
    check(static_cast<std::int64_t>(logits.size()) >= rows * n_expert && static_cast<std::int64_t>(choices.size()) >= rows * k,
          "route_top_k: buffers of {} and {} cannot hold {} rows of {} experts, {} chosen", logits.size(), choices.size(), rows,
          n_expert, k);
    ThreadPool::global().parallel_for(rows, 16, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            const auto row = logits.subspan(static_cast<std::size_t>(i * n_expert), static_cast<std::size_t>(n_expert));
            const auto chosen = choices.subspan(static_cast<std::size_t>(i * k), static_cast<std::size_t>(k));
            if (gating == ExpertGating::SoftmaxThenTopK) route_row_renormalised(row, chosen);
            else route_row_softmax_of_top_k(row, chosen);
        }
    });
}

}  // namespace forge::infer
