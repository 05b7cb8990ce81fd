// The shape of a forge GPT: nanochat's recipe (github.com/karpathy/nanochat) in the form
// llama.cpp's `qwen3` architecture runs exactly.
//
//   width = 64 x depth, heads of 128 (64 when the width is not a multiple of 128),
//   parameter-free RMSNorm (exported as weights of ones), NeoX RoPE (base 10000), QK-norm,
//   SwiGLU MLP of hidden width 8/3 x width rounded up to 64 (the parameter count of
//   nanochat's 4x relu² MLP), untied embedding and head, no biases.
//
// nanochat normalises the embedding rows before the first block; qwen3 does not, so the
// export folds that norm into token_embd (each row normalised once: the same numbers).
// nanochat's logit softcap and relu² have no qwen3 counterpart and are left out.
#pragma once

#include <cstdint>

namespace forge::gpt {

// The largest model and context validate() accepts (and `forge train gpt|sft` at parse time):
// 64 blocks is a width of 4096; a context of 2^16 already needs 16 GiB per head for the
// attention scores of one row.
inline constexpr std::int64_t kMaxDepth = 64;
inline constexpr std::int64_t kMaxContext = std::int64_t{1} << 16;

struct GptConfig {
    std::int64_t depth = 4;
    std::int64_t vocab = 0;
    std::int64_t context = 256;  // the training sequence length, also the exported context length
    std::int64_t head_dim = 0;   // 0: 128 when it divides the width, else 64
    float rope_base = 10000.0f;
    float norm_eps = 1e-6f;

    std::int64_t width() const { return 64 * depth; }
    std::int64_t head_size() const;
    std::int64_t n_head() const { return width() / head_size(); }
    std::int64_t ff_hidden() const;
    void validate() const;  // throws naming the field
};

}  // namespace forge::gpt
