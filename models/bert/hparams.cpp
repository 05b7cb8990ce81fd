#include "models/bert/hparams.h"

#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/metadata.h"

namespace forge::bert {

Hparams read_hparams(const gguf::GgufFile& file) {
    const gguf::Metadata meta(file);
    Hparams h;
    h.arch_name = meta.string("general.architecture");
    if (h.arch_name == "bert") {
        h.arch = Arch::Bert;
    } else if (h.arch_name == "nomic-bert") {
        h.arch = Arch::NomicBert;
    } else {
        fail_format("{}: general.architecture = '{}' is not a BERT-family encoder (bert or nomic-bert)",
                    file.source(), h.arch_name);
    }
    const std::string& a = h.arch_name;
    const auto positive = gguf::Range<std::int64_t>::at_least(1);
    h.n_vocab = static_cast<std::int64_t>(meta.array("tokenizer.ggml.tokens").items.size());
    h.n_ctx = meta.integer(a + ".context_length", positive);
    h.n_embd = meta.integer(a + ".embedding_length", positive);
    h.n_head = meta.integer(a + ".attention.head_count", positive);
    h.n_ff = meta.integer(a + ".feed_forward_length", positive);
    h.n_layer = meta.integer(a + ".block_count", positive);
    h.norm_eps = static_cast<float>(meta.number(a + ".attention.layer_norm_epsilon", {0.0, 1.0}));
    h.n_token_types = meta.integer_or("tokenizer.ggml.token_type_count", 2, positive);
    check_format(h.n_embd % h.n_head == 0, "{}: {}.embedding_length = {} is not a multiple of {}.attention.head_count = {}",
                 file.source(), a, h.n_embd, a, h.n_head);
    h.head_dim = h.n_embd / h.n_head;
    if (h.arch == Arch::NomicBert) {
        h.rope_base = static_cast<float>(meta.number_or(a + ".rope.freq_base", 10000.0, {1e-3, 1e12}));
        check_format(h.head_dim % 2 == 0, "{}: nomic-bert needs an even head size for its rotary positions, got {}",
                     file.source(), h.head_dim);
    }
    // llama.cpp's enum llama_pooling_type; a file without the key gives one vector per token.
    const std::int64_t pooling = meta.integer_or(a + ".pooling_type", 0, {0, 4});
    h.pooling = static_cast<llm::Pooling>(pooling);
    check_format(h.pooling != llm::Pooling::Last, "{}: {}.pooling_type = 3 (last) is a decoder's pooling; an encoder "
                 "pools mean, cls or rank", file.source(), a);
    return h;
}

}  // namespace forge::bert
