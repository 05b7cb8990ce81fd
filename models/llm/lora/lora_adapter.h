// A LoRA adapter (Hu et al. 2021) in llama.cpp's GGUF adapter format (src/llama-adapter.cpp):
//
//   general.architecture = the base's        general.type = "adapter"
//   adapter.type = "lora"                    adapter.lora.alpha = f32
//   per adapted base weight W (GGUF dims [n_in, n_out]) two tensors
//     "<W>.lora_a"  GGUF dims [n_in, r]   (forge shape [r, n_in])
//     "<W>.lora_b"  GGUF dims [r, n_out]  (forge shape [n_out, r])
//
// Applied to y = W x as  y += (alpha / r) * scale * B (A x), `scale` chosen by the user at run
// time (`--lora A.gguf:SCALE`, 1 by default). This header is the one definition of the format
// that training (writes), run-time application, merging and serving (read) share.
#pragma once

#include "core/tensor.h"

#include <map>
#include <string>

namespace forge::llm::lora {

// One adapted weight: the two low-rank factors, f32, in forge's row-major orientation.
struct LowRankPair {
    Tensor a;  // [rank, n_in]
    Tensor b;  // [n_out, rank]

    std::int64_t rank() const { return a.shape()[0]; }
};

struct LoraAdapter {
    std::string architecture;  // the base model's general.architecture
    float alpha = 0.0f;
    // Keyed by the base weight's GGUF tensor name, e.g. "blk.0.attn_q.weight".
    std::map<std::string, LowRankPair> weights;

    // alpha / r: the factor llama.cpp applies before the user's scale (all pairs share r);
    // 1 when alpha is 0 or absent, as llama.cpp does.
    float alpha_over_rank() const;
};

// Reads an adapter file; throws FormatError naming the file and the key or tensor at fault
// (not an adapter, a lora_a without its lora_b, ranks that disagree, shapes that do not fit).
// Factors stored as f16 or bf16 (llama.cpp accepts them) are widened to f32.
LoraAdapter read_lora_adapter(const std::string& path);

// Writes it atomically (<path>.tmp, then rename), tensors in the base's layer order.
void write_lora_adapter(const LoraAdapter& adapter, const std::string& path);

}  // namespace forge::llm::lora
