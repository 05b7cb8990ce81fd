// A llama-family model (llama, qwen2, qwen3, smollm3) made trainable for LoRA (Hu et al. 2021):
// its GGUF weights stay frozen as they are in the file (any dtype forge runs, multiplied by
// ag::frozen_linear), and each adapted matrix W gets two trainable factors,
//
//   y = W x + (alpha / r) · B (A dropout(x)),    A [r, n_in] ~ U(±1/sqrt(n_in)), B [n_out, r] = 0
//
// (peft's and llama.cpp's initialisation: the adapter starts as the identity). The forward is
// llama.cpp's graph on core's autograd: embedding rows -> n_layer x (rmsnorm, q/k/v with
// qwen2's biases and qwen3's per-head norms, RoPE, causal grouped-query attention, output
// projection; rmsnorm, SwiGLU feed-forward), each with its residual -> rmsnorm -> head.
// Only A and B are parameters, named as the adapter file names them
// ("blk.N.attn_q.weight.lora_a"), so a checkpoint is also an adapter. With gradients each block
// is recomputed in the backward pass (ag::recompute) rather than keeping its activations, so
// training memory is the weights, one block's activations, the block inputs and a chunk of logits;
// how much of a block is kept instead is LoraSettings::checkpointing.
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/tensor.h"
#include "models/llm/hparams.h"
#include "models/llm/lora/lora_adapter.h"
#include "models/llm/weights.h"
#include "nn/parameter_set.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm::lora {

// The matrices of a block an adapter may target, by their short names (`--targets`).
enum class Target { Q, K, V, O, Gate, Up, Down };

// "q,k,v,o,gate,up,down" (any subset, any order) -> targets; an unknown or repeated name is an
// error naming it.
std::vector<Target> parse_targets(std::string_view list);
std::string target_names(const std::vector<Target>& targets);  // back to "q,k,v"

// What the backward pass recomputes of each block (activation checkpointing, as torch's
// checkpoint and its selective policies). The three compute the same values bit for bit: a
// recomputation runs the same ops on the same inputs; they differ in memory and time only.
enum class Checkpointing {
    Full,      // each block run again whole in the backward: memory holds the block inputs only
    Matmuls,   // the base's products kept (12 of 29 values per token in a qwen3 block), the rest run
               // again: the quantized multiplies, most of a block's time, run once
    Off,       // every activation kept, nothing run again (about 2.5x Full's memory for the blocks)
};
// "full", "matmuls", "off" <-> Checkpointing (an unknown name is an error naming it).
Checkpointing parse_checkpointing(std::string_view name);
std::string_view checkpointing_name(Checkpointing c);

struct LoraSettings {
    std::vector<Target> targets{Target::Q, Target::K, Target::V, Target::O, Target::Gate, Target::Up, Target::Down};
    std::int64_t rank = 16;
    float alpha = 32.0f;
    float dropout = 0.0f;  // on the adapter's input only, as peft's lora_dropout
    std::uint64_t seed = 0;  // A's initial values (per name) and the dropout masks
    Checkpointing checkpointing = Checkpointing::Matmuls;
};

class LoraModel {
public:
    LoraModel(const std::filesystem::path& base, const LoraSettings& settings);
    LoraModel(const LoraModel&) = delete;
    LoraModel& operator=(const LoraModel&) = delete;

    // ids [B, T] i32 -> logits [B, T, n_vocab]. dropout_key names this pass's dropout masks
    // (a pure function of it); training false runs without dropout (evaluation).
    Tensor forward(const Tensor& ids, std::uint64_t dropout_key, bool training) const;
    // The same pass up to the head's input: ids [B, T] -> the final rmsnorm's output [B, T, n_embd]
    // (forward is frozen_linear(hidden(...), head()); the trainer's loss multiplies the head a
    // chunk of rows at a time instead, ag::frozen_linear_cross_entropy).
    Tensor hidden(const Tensor& ids, std::uint64_t dropout_key, bool training) const;
    // The output head (output.weight, or the tied token embedding), frozen in its file's format.
    const infer::Linear& head() const { return weights_.output; }

    const Hparams& hparams() const { return hparams_; }
    const gguf::GgufFile& file() const { return file_; }
    const LoraSettings& settings() const { return settings_; }
    nn::ParameterSet& params() { return params_; }
    const nn::ParameterSet& params() const { return params_; }

    // The factors as an adapter file holds them (shared storage).
    LoraAdapter adapter() const;

private:
    // One block's adapter factors, by Target (undefined where the matrix is not adapted).
    struct Factors {
        std::array<Tensor, 7> a, b;
    };

    // The base's products W x (+ bias) of one block, by Target, kept by the forward pass for the
    // recomputation (Checkpointing::Matmuls); each is handed over once.
    using Products = std::array<Tensor, 7>;

    // x -> x + attention(x) -> + feed_forward: one block, with the factors given (during the
    // backward pass they are the recomputation's own leaves, ag::recompute). With `products`,
    // each base product is taken from it where it holds one, else computed and put there.
    Tensor block(std::int64_t layer, const Tensor& x, const Factors& f, std::uint64_t key, bool training,
                 Products* products) const;
    // W x (+ bias) + (alpha / r) B (A dropout(x)) for matrix t of a block.
    Tensor adapted(const infer::Linear& base, const Factors& f, Target t, const Tensor& x, std::uint64_t key,
                   bool training, Products* products) const;
    // The defined factors of a block in Target order, a before b, and back.
    std::vector<Tensor> flatten(const Factors& f) const;
    Factors unflatten(std::span<const Tensor> flat) const;
    Tensor embed(const Tensor& ids) const;

    gguf::GgufFile file_;
    Hparams hparams_;
    ModelWeights weights_;
    LoraSettings settings_;
    nn::ParameterSet params_;
    std::vector<Factors> factors_;  // per block
};

}  // namespace forge::llm::lora
