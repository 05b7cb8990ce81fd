// `forge chat MODEL.gguf [-p PROMPT] [-n N] [--raw] [--system S] [--no-think] [--temp T]
// [--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R] [--seed S] [--ctx N] [--kv-type f16|f32]`
//
// With -p: one answer, streamed to stdout. Without: a REPL with multi-turn history (/reset,
// /exit, Ctrl-D). Each turn renders the whole conversation with the model's chat template
// (--raw: the text as is), and only the tokens past what the KV cache already holds are
// evaluated. Load time and prompt/generation speed go to stderr.
#include "app/cli_checks.h"
#include "app/commands.h"
#include "core/error.h"
#include "models/llm/chat_template/chat_template.h"
#include "models/llm/model.h"
#include "models/llm/sampler.h"
#include "models/llm/session.h"
#include "models/llm/tokenizer/token_stream_decoder.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <random>

namespace forge::app {

namespace {

using Clock = std::chrono::steady_clock;

struct ChatCliOptions {
    std::string model;
    std::optional<std::string> prompt;
    std::int64_t n_predict = 512;
    bool raw = false;
    std::string system;
    bool no_think = false;
    llm::SamplerOptions sampling;
    std::optional<std::uint64_t> seed;
    std::int64_t ctx = 4096;
    std::string kv_type = "f16";
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Token counts and times over the whole run, for the closing speed report.
struct Speed {
    std::int64_t prompt_tokens = 0, generated_tokens = 0;
    double prompt_s = 0, generate_s = 0;
};

class Chat {
public:
    Chat(const llm::Model& model, const ChatCliOptions& o)
        : o_(o),
          tokenizer_(llm::Tokenizer::from_gguf(model.file())),
          session_(model, llm::SessionOptions{o.ctx, 512, llm::kv_type_from_name(o.kv_type)}),
          sampler_(o.sampling, model.hparams().n_vocab) {
        if (const gguf::Value* t = model.file().find("tokenizer.chat_template"); t != nullptr && t->string() != nullptr) {
            template_ = *t->string();
        }
        cached_.reserve(static_cast<std::size_t>(session_.n_ctx()));  // decoding appends without reallocating
        reset();
    }

    // One user turn: the answer is streamed to stdout and kept in the history.
    void turn(const std::string& user_text) {
        history_.push_back({"user", user_text, ""});
        const std::vector<std::int32_t> prompt = tokenizer_.encode(render(), true, true);
        const std::string answer = generate(prompt);
        history_.push_back({"assistant", answer, ""});
    }

    void reset() {
        history_.clear();
        if (!o_.system.empty()) history_.push_back({"system", o_.system, ""});
        cached_.clear();
        session_.reset();
        sampler_.reset();
    }

    const Speed& speed() const { return speed_; }

private:
    std::string render() const {
        if (o_.raw) return history_.back().content;
        llm::ChatOptions options;
        if (o_.no_think) options.enable_thinking = false;
        const auto token_text = [&](std::int32_t id) { return id >= 0 ? tokenizer_.token_text(id) : std::string(); };
        options.bos_token = token_text(tokenizer_.bos_id());
        options.eos_token = token_text(tokenizer_.eos_id());
        return llm::render_chat(template_, history_, options);
    }

    // Evaluate what the cache lacks of `prompt`, then sample until end of generation or -n.
    std::string generate(const std::vector<std::int32_t>& prompt) {
        check(!prompt.empty(), "the prompt is empty: nothing to answer (give some text, or drop --raw)");
        std::size_t common = 0;
        while (common < prompt.size() && common < cached_.size() && prompt[common] == cached_[common]) ++common;
        if (o_.raw || common == prompt.size()) common = 0;  // raw turns are independent; always eval >= 1
        if (common == 0) session_.reset();
        session_.truncate(static_cast<std::int64_t>(common));
        cached_.assign(prompt.begin(), prompt.begin() + static_cast<std::ptrdiff_t>(common));

        const auto fresh = std::span(prompt).subspan(common);
        const auto start = Clock::now();
        std::span<const float> logits = session_.eval(fresh);
        speed_.prompt_s += seconds_since(start);
        speed_.prompt_tokens += static_cast<std::int64_t>(fresh.size());
        cached_.insert(cached_.end(), fresh.begin(), fresh.end());
        for (std::int32_t id : fresh) sampler_.accept(id);
        return stream_answer(logits);
    }

    std::string stream_answer(std::span<const float> logits) {
        llm::TokenStreamDecoder decoder(tokenizer_);
        std::vector<std::int32_t> answer;
        // -n -1: no limit but the context (as llama.cpp).
        const std::int64_t limit = o_.n_predict < 0 ? session_.n_ctx() : std::min(o_.n_predict, session_.n_ctx());
        answer.reserve(static_cast<std::size_t>(limit));
        const auto start = Clock::now();
        for (std::int64_t i = 0; i < limit; ++i) {
            const std::int32_t id = sampler_.sample(logits);
            if (tokenizer_.is_end_of_generation(id)) break;
            sampler_.accept(id);
            answer.push_back(id);
            std::fputs(decoder.push(id).c_str(), stdout);
            std::fflush(stdout);
            if (session_.n_past() >= session_.n_ctx()) {
                spdlog::warn("the context is full ({} tokens, --ctx {}): stopping", session_.n_past(), session_.n_ctx());
                break;
            }
            logits = session_.eval(std::span(&id, 1));
            cached_.push_back(id);
            ++speed_.generated_tokens;
        }
        std::fputs((decoder.flush() + "\n").c_str(), stdout);
        std::fflush(stdout);
        speed_.generate_s += seconds_since(start);
        return tokenizer_.decode(answer);
    }

    const ChatCliOptions& o_;
    llm::Tokenizer tokenizer_;
    llm::Session session_;
    llm::Sampler sampler_;
    std::string template_;
    std::vector<llm::ChatMessage> history_;
    std::vector<std::int32_t> cached_;  // the tokens in the KV cache, in order
    Speed speed_;
};

void repl(Chat& chat) {
    std::string line;
    while (true) {
        std::fputs("> ", stderr);
        if (!std::getline(std::cin, line) || line == "/exit") break;  // Ctrl-D ends the session too
        if (line == "/reset") {
            chat.reset();
            std::fputs("(conversation cleared)\n", stderr);
            continue;
        }
        if (line.empty()) continue;
        chat.turn(line);
    }
}

int run_chat(ChatCliOptions o) {
    o.sampling.seed = o.seed ? *o.seed : std::random_device{}();
    const auto load_start = Clock::now();
    const llm::Model model = llm::Model::load(o.model);
    Chat chat(model, o);
    fmt::print(stderr, "loaded {} ({}, {} layers) in {:.2f} s\n", o.model, model.hparams().arch_name,
               model.hparams().n_layer, seconds_since(load_start));
    if (o.prompt) {
        chat.turn(*o.prompt);
    } else {
        repl(chat);
    }
    const Speed& s = chat.speed();
    fmt::print(stderr, "prompt: {} tokens, {:.1f} tok/s; generation: {} tokens, {:.1f} tok/s\n", s.prompt_tokens,
               s.prompt_s > 0 ? static_cast<double>(s.prompt_tokens) / s.prompt_s : 0.0, s.generated_tokens,
               s.generate_s > 0 ? static_cast<double>(s.generated_tokens) / s.generate_s : 0.0);
    return 0;
}

}  // namespace

void add_chat_command(CLI::App& forge, CommandTable& commands) {
    auto o = std::make_shared<ChatCliOptions>();
    CLI::App* cmd = forge.add_subcommand("chat", "Chat with a GGUF language model (llama, qwen2, qwen3)");
    cmd->add_option("MODEL", o->model, "GGUF model")->required();
    cmd->add_option("-p,--prompt", o->prompt, "One prompt, one answer (default: interactive)");
    cmd->add_option("-n,--n-predict", o->n_predict, "Most tokens per answer, -1 no limit (default 512)")
        ->check(CLI::Range(std::int64_t{-1}, std::int64_t{1} << 40));
    cmd->add_flag("--raw", o->raw, "Plain completion: no chat template");
    cmd->add_option("--system", o->system, "System message");
    cmd->add_flag("--no-think", o->no_think, "Ask the template to turn thinking off (Qwen3)");
    cmd->add_option("--temp", o->sampling.temperature, "Temperature; 0 = greedy (default 0.8)")
        ->check(finite_range(0.0, 1e6));
    cmd->add_option("--top-k", o->sampling.top_k, "Top-k, <= 0 off (default 40)");
    cmd->add_option("--top-p", o->sampling.top_p, "Top-p, 1 off (default 0.95)")->check(finite_range(0.0, 1.0));
    cmd->add_option("--min-p", o->sampling.min_p, "Min-p, 0 off (default 0.05)")->check(finite_range(0.0, 1.0));
    cmd->add_option("--repeat-penalty", o->sampling.repeat_penalty, "Repetition penalty, 1 off (default 1)")
        ->check(finite_range(1e-6, 1e6));
    cmd->add_option("--seed", o->seed, "Random seed (default: random)");
    cmd->add_option("--ctx", o->ctx, "Context size in tokens (default 4096)")
        ->check(CLI::Range(std::int64_t{1}, llm::kMaxContext));
    cmd->add_option("--kv-type", o->kv_type, "KV cache precision: f16 (default) or f32");
    commands.add(cmd, [o] { return run_chat(*o); });
}

}  // namespace forge::app
