// `forge logits MODEL.gguf --tokens 1,2,3 --out FILE [--ctx N] [--kv-type f16|f32]`: run the
// model over the tokens and write every position's raw logits, little-endian float32
// [n_tokens, n_vocab], one row per position. The comparison tool for llama.cpp parity
// (`--lora A.gguf[:SCALE]` as llama.cpp's `--lora` / `--lora-scaled`).
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/lora_flags.h"
#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "models/llm/model.h"
#include "core/infer/kv_cache.h"
#include "models/llm/session.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <bit>
#include <charconv>
#include <memory>
#include <span>
#include <vector>

namespace forge::app {

namespace {

struct LogitsOptions {
    std::string model;
    std::string tokens;
    std::string out;
    std::int64_t ctx = 0;  // 0: just enough for the tokens
    std::string kv_type = "f32";
    std::vector<std::string> lora;
};

std::vector<std::int32_t> parse_tokens(const std::string& text) {
    std::vector<std::int32_t> ids;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        std::int32_t id = 0;
        const auto [ptr, ec] = std::from_chars(text.data() + start, text.data() + end, id);
        check(ec == std::errc{} && ptr == text.data() + end && end > start, "--tokens: '{}' is not a token id",
              text.substr(start, end - start));
        ids.push_back(id);
        start = end + 1;
    }
    return ids;
}

int run_logits(const LogitsOptions& o) {
    static_assert(std::endian::native == std::endian::little, "logits files are little-endian float32");
    const std::vector<std::int32_t> tokens = parse_tokens(o.tokens);
    checkpoint::check_not_an_input(o.out, {o.model});
    for (const std::string& adapter : o.lora) checkpoint::check_not_an_input(o.out, {llm::lora::parse_lora_spec(adapter).path});
    llm::Model model = llm::Model::load(o.model);
    attach_lora_adapters(model, o.lora);
    llm::SessionOptions options;
    options.n_ctx = o.ctx > 0 ? o.ctx : static_cast<std::int64_t>(tokens.size());
    options.kv_type = llm::kv_type_from_name(o.kv_type);
    llm::Session session(model, options);
    std::vector<float> logits(tokens.size() * static_cast<std::size_t>(model.hparams().n_vocab));
    session.eval(tokens, logits);
    checkpoint::write_file_atomically(o.out, std::as_bytes(std::span(logits)));
    spdlog::info("wrote {} x {} logits to {}", tokens.size(), model.hparams().n_vocab, o.out);
    return 0;
}

}  // namespace

void add_logits_command(CLI::App& forge, CommandTable& commands) {
    auto o = std::make_shared<LogitsOptions>();
    CLI::App* cmd = forge.add_subcommand("logits", "Write a language model's raw logits for a token sequence");
    cmd->add_option("MODEL", o->model, "GGUF model (llama, qwen2, qwen3, qwen3moe, smollm3, phi3, gpt-oss)")->required();
    cmd->add_option("--tokens", o->tokens, "Comma-separated token ids, e.g. 1,2,3")->required();
    cmd->add_option("--out", o->out, "Output: little-endian float32 [n_tokens, n_vocab]")->required();
    cmd->add_option("--ctx", o->ctx, "Context size (default: the number of tokens)")
        ->check(CLI::Range(std::int64_t{1}, infer::kMaxContext));
    cmd->add_option("--kv-type", o->kv_type, "KV cache precision: f32 (default here, for exact comparisons), f16 or q8_0")
        ->check(kv_cache_type());
    add_lora_flag(*cmd, o->lora);
    commands.add(cmd, [o] { return run_logits(*o); });
}

}  // namespace forge::app
