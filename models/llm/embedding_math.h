// What clients do with an encoder's raw output: vectors scaled to unit length (OpenAI's and
// llama-server's embeddings are, so a dot product is the cosine), and a reranker's logit as a
// relevance score in (0, 1) (Jina's and Cohere's scale; llama-server's softmax over a
// Qwen3-Reranker's yes/no pair is the same number).
#pragma once

#include <cmath>
#include <span>

namespace forge::llm {

// v / |v|₂ in place (summed in double); a zero vector stays zero, as llama.cpp leaves it.
inline void normalize_l2(std::span<float> v) {
    double sum = 0.0;
    for (const float x : v) sum += static_cast<double>(x) * x;
    if (sum <= 0.0) return;
    const double scale = 1.0 / std::sqrt(sum);
    for (float& x : v) x = static_cast<float>(x * scale);
}

inline float relevance_score(float logit) { return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(logit)))); }

}  // namespace forge::llm
