// The LoRA adapters a model runs with (`--lora A.gguf[:SCALE]`, repeatable), checked against
// the base and arranged for the forward pass: for each layer and projection, the low-rank
// pairs that add (alpha / r) * scale * B (A x) to its output. Fused base tensors (phi3's
// attn_qkv, its ffn_up holding gate and up) have their B cut by the same rows as the weight.
//
// The stack holds each adapter's default scale; who runs the model may choose other scales
// per sequence (models/llm/lora/lora_runtime.h), as llama-server's per-request "lora".
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/infer/linear.h"
#include "models/llm/hparams.h"
#include "models/llm/lora/lora_adapter.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace forge::llm::lora {

// One `--lora` argument: "A.gguf" (scale 1) or "A.gguf:0.5".
struct LoraSpec {
    std::string path;
    float scale = 1.0f;
};
LoraSpec parse_lora_spec(const std::string& text);

// The projections an adapter may target, in the order the forward pass runs them.
enum class Projection { Q, K, V, O, Gate, Up, Down };
inline constexpr std::size_t kProjections = 7;

// B (A x) for one adapter on one projection: A [r, n_in], B [n_out, r] as f32 linears.
struct LowRankDelta {
    std::size_t adapter = 0;  // its index in the stack (for its scale)
    infer::Linear a, b;
    float alpha_over_rank = 1.0f;
};

class LoraStack {
public:
    // Reads each adapter and checks it against the base file: the same architecture, every
    // adapted weight a base tensor forge applies adapters to, the factors' shapes fitting it.
    // Errors name the adapter file and the tensor.
    static LoraStack load(const gguf::GgufFile& base, const Hparams& hparams, std::span<const LoraSpec> specs);

    std::size_t size() const { return paths_.size(); }
    const std::string& path(std::size_t adapter) const { return paths_[adapter]; }
    const std::vector<float>& default_scales() const { return default_scales_; }
    // The pairs applied to `projection` of block `layer` (empty when no adapter targets it).
    std::span<const LowRankDelta> deltas(std::int64_t layer, Projection projection) const;
    std::int64_t max_rank() const { return max_rank_; }

private:
    void add(std::size_t adapter, const gguf::GgufFile& base, const Hparams& hparams, const std::string& name,
             const LowRankPair& pair, float alpha_over_rank);

    std::vector<std::string> paths_;
    std::vector<float> default_scales_;
    std::vector<std::array<std::vector<LowRankDelta>, kProjections>> layers_;
    std::int64_t max_rank_ = 0;
};

}  // namespace forge::llm::lora
