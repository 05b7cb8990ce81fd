#include "models/gpt/export_gguf.h"

#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "nn/parameter_set.h"

#include <fmt/format.h>


namespace forge::gpt {
namespace {

constexpr std::uint32_t kFileTypeAllF32 = 0;  // llama_ftype LLAMA_FTYPE_ALL_F32

void set_hparams(gguf::GgufWriter& w, const GptConfig& c, const std::string& name) {
    const auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
    w.set("general.architecture", "qwen3");
    w.set("general.name", name);
    w.set("general.file_type", kFileTypeAllF32);
    w.set("qwen3.context_length", u32(c.context));
    w.set("qwen3.embedding_length", u32(c.width()));
    w.set("qwen3.block_count", u32(c.depth));
    w.set("qwen3.feed_forward_length", u32(c.ff_hidden()));
    w.set("qwen3.attention.head_count", u32(c.n_head()));
    w.set("qwen3.attention.head_count_kv", u32(c.n_head()));
    w.set("qwen3.attention.key_length", u32(c.head_size()));
    w.set("qwen3.attention.value_length", u32(c.head_size()));
    w.set("qwen3.rope.dimension_count", u32(c.head_size()));
    w.set("qwen3.rope.freq_base", c.rope_base);
    w.set("qwen3.attention.layer_norm_rms_epsilon", c.norm_eps);
    w.set("qwen3.vocab_size", u32(c.vocab));
}

}  // namespace

void export_gguf(const GptModel& model, const gguf::GgufFile& tokenizer, const std::string& name,
                 const std::filesystem::path& path) {
    const GptConfig& c = model.config();
    gguf::GgufWriter w;
    set_hparams(w, c, name);
    bool has_tokens = false;
    for (const auto& kv : tokenizer.metadata()) {
        if (kv.key.rfind("tokenizer.", 0) != 0) continue;
        has_tokens = has_tokens || kv.key == "tokenizer.ggml.tokens";
        w.set(kv.key, kv.value);
    }
    check(has_tokens, "--tokenizer {}: no tokenizer.ggml.tokens to copy into the model", tokenizer.source());

    const Tensor ones_d = Tensor::full({c.width()}, 1.0f), ones_head = Tensor::full({c.head_size()}, 1.0f);
    nn::add_f32_to_gguf(w, "token_embd.weight", model.normalized_embedding());
    for (std::int64_t i = 0; i < c.depth; ++i) {
        const std::string p = fmt::format("blk.{}.", i);
        nn::add_f32_to_gguf(w, p + "attn_norm.weight", ones_d);
        nn::add_f32_to_gguf(w, p + "attn_q_norm.weight", ones_head);
        nn::add_f32_to_gguf(w, p + "attn_k_norm.weight", ones_head);
        nn::add_f32_to_gguf(w, p + "ffn_norm.weight", ones_d);
        for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"}) {
            const std::string tensor = p + m + ".weight";
            nn::add_f32_to_gguf(w, tensor, model.params().at(tensor));
        }
    }
    nn::add_f32_to_gguf(w, "output_norm.weight", ones_d);
    nn::add_f32_to_gguf(w, "output.weight", model.head_weight());
    w.write(path.string());
}

}  // namespace forge::gpt
