// `forge chat [MODEL.gguf|default] [-p PROMPT] [-n N] [--raw] [--system S] [--no-think] [--temp T]
// [--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R] [--seed S] [--ctx N] [--kv-type f16|f32]
// [--json-schema FILE | --regex PATTERN | --grammar-file F.gbnf] [--spec off|lookup|draft] [--draft-max N]
// [--lookup-file F] [--model-draft SMALL.gguf] [--draft-min-p P]`
//
// With -p: one answer, streamed to stdout. Without: the REPL of app/chat_repl.h (line editing
// and history on a terminal, /help, /reset, /system, /save, /exit, Ctrl-C). Each turn renders the whole conversation with the model's chat template
// (--raw: the text as is), and only the tokens past what the KV cache already holds are
// evaluated (models/llm/sequence_generator.h). When the conversation outgrows --ctx, the oldest turns
// are dropped with a warning. The context defaults to the model's trained length when that is
// under 4096; a --ctx past it warns (app/context_size.h). --spec lookup decodes speculatively
// (models/llm/speculator.h): the same answer, more tokens per pass where the text repeats itself
// or quotes --lookup-file; --spec draft --model-draft SMALL.gguf has a small model guess. A
// thinking model's reasoning (Qwen3's <think>, gpt-oss's analysis channel) is shown apart,
// dimmed on a terminal, and kept as the turn's reasoning_content, not its content. Load time
// and prompt/generation speed (with the draft acceptance) go to stderr.
#include "app/bundled_models.h"
#include "app/lora_flags.h"
#include "app/chat_grammar.h"
#include "app/chat_repl.h"
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/context_size.h"
#include "app/line_input.h"
#include "app/speculation_flags.h"
#include "core/error.h"
#include "core/infer/kv_cache.h"
#include "models/llm/answer_splitter.h"
#include "models/llm/sequence_generator.h"
#include "models/llm/grammar/grammar_constraint.h"
#include "models/llm/model.h"
#include "models/llm/sampler.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <random>

namespace forge::app {

namespace {

using Clock = std::chrono::steady_clock;

// --ctx when the model was trained on at least as many positions.
constexpr std::int64_t kDefaultContext = 4096;

struct ChatCliOptions {
    std::string model;
    std::optional<std::string> prompt;
    std::vector<std::string> lora;  // --lora FILE[:SCALE]
    std::int64_t n_predict = 512;
    bool raw = false;
    std::string system;
    bool no_think = false;
    llm::SamplerOptions sampling;
    std::optional<std::uint64_t> seed;
    std::optional<std::int64_t> ctx;  // --ctx as given; the session gets n_ctx (app/context_size.h)
    std::int64_t n_ctx = 0;
    std::string kv_type = "f16";
    ChatGrammarFlags grammar;  // constrain every answer (models/llm/grammar/)
    SpeculationFlags speculation;
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Token counts and times over the whole run, for the closing speed report.
struct Speed {
    std::int64_t prompt_tokens = 0, generated_tokens = 0;
    std::int64_t drafted_tokens = 0, accepted_tokens = 0;  // --spec
    double prompt_s = 0, generate_s = 0;
};

// An answer as it streams to stdout: the reasoning first, set apart as `ollama run` shows it
// ("Thinking..." to "...done thinking."), dimmed on a terminal; then the content. On a
// terminal, control characters are escaped: the text comes from a downloaded vocabulary and
// follows whatever the prompt asked for (a pasted document may ask for escape sequences). A
// pipe gets the text exactly.
class AnswerPrinter {
public:
    explicit AnswerPrinter(bool terminal) : terminal_(terminal) {}

    void show(const llm::AnswerPiece& piece) {
        if (!piece.reasoning.empty()) {
            if (!thinking_) open_thinking();
            write(piece.reasoning);
            reasoning_ += piece.reasoning;
        }
        if (!piece.content.empty()) {
            if (thinking_) close_thinking();
            write(piece.content);
            content_ += piece.content;
        }
        std::fflush(stdout);
    }

    // The answer is over (or cut short).
    void end() {
        if (thinking_) close_thinking();
        std::fputs("\n", stdout);
        std::fflush(stdout);
    }

    const std::string& reasoning() const { return reasoning_; }
    const std::string& content() const { return content_; }

private:
    static constexpr const char* kDim = "\033[2m";
    static constexpr const char* kPlain = "\033[0m";

    void write(std::string_view text) const {
        const std::string shown = terminal_ ? printable(text) : std::string(text);
        std::fwrite(shown.data(), 1, shown.size(), stdout);
    }
    void open_thinking() {
        if (terminal_) std::fputs(kDim, stdout);
        std::fputs("Thinking...\n", stdout);
        thinking_ = true;
    }
    void close_thinking() {
        std::fputs("\n...done thinking.\n\n", stdout);
        if (terminal_) std::fputs(kPlain, stdout);
        thinking_ = false;
    }

    bool terminal_;
    bool thinking_ = false;
    std::string reasoning_, content_;
};

class Chat : public Conversation {
public:
    Chat(const llm::Model& model, const ChatCliOptions& o)
        : o_(o),
          system_(o.system),
          format_(model),
          generator_(model, format_.tokenizer(), llm::SessionOptions{o.n_ctx, 512, llm::kv_type_from_name(o.kv_type)},
                     speculation_options(o.speculation, format_.tokenizer())),
          sampler_(o.sampling, model.hparams().n_vocab) {
        generation_.sampling = o.sampling;
        generation_.max_tokens = o.n_predict;
        grammar_ = chat_grammar(o.grammar);
        if (grammar_) vocabulary_ = std::make_shared<const llm::grammar::VocabularyIndex>(format_.tokenizer());
        reset();
    }

    // One user turn: the answer is streamed to stdout and kept in the history, a thinking
    // model's reasoning apart from its content (models/llm/answer_splitter.h).
    bool turn(const std::string& user_text, const std::function<bool()>& stop) override {
        history_.push_back({"user", user_text, ""});
        if (grammar_) generation_.constraint = std::make_shared<llm::grammar::GrammarConstraint>(grammar_, vocabulary_);
        const llm::AnswerFormat format = llm::answer_format(format_.chat_template(), !o_.raw);
        llm::AnswerSplitter splitter(format, llm::tool_calls::ToolFormat::Hermes, /*parse_tool_calls=*/false, "call_");
        AnswerPrinter printer(stdout_is_a_terminal_);
        const llm::GenerationStats stats = generator_.generate(prompt(), generation_, sampler_, [&](std::string_view piece) {
            printer.show(splitter.push(piece));
            return !stop();
        });
        printer.show(splitter.finish());
        printer.end();
        if (stats.finish == llm::FinishReason::ContextFull) {
            spdlog::warn("the context is full ({} tokens, --ctx {}): stopping", generator_.session().n_past(),
                         generator_.session().n_ctx());
        }
        speed_.prompt_tokens += stats.prompt_tokens - stats.cached_tokens;
        speed_.prompt_s += stats.prompt_s;
        speed_.generated_tokens += stats.generated_tokens;
        speed_.generate_s += stats.generate_s;
        speed_.drafted_tokens += stats.drafted_tokens;
        speed_.accepted_tokens += stats.accepted_tokens;
        // A plain answer is kept as its tokens decode, exactly what the KV cache holds.
        if (format == llm::AnswerFormat::Plain) {
            history_.push_back({"assistant", format_.tokenizer().decode(generator_.answer()), ""});
        } else {
            history_.push_back({"assistant", printer.content(), printer.reasoning()});
        }
        return stats.finish != llm::FinishReason::Cancelled;
    }

    void reset() override {
        history_.clear();
        if (!system_.empty()) history_.push_back({"system", system_, ""});
        generator_.reset();
        sampler_.reset();
    }

    // The conversation goes on under the new system message (the KV cache keeps what still
    // matches: nothing, since the system message comes first).
    void set_system(const std::string& text) override {
        if (!system_.empty()) history_.erase(history_.begin());
        system_ = text;
        if (!system_.empty()) history_.insert(history_.begin(), {"system", system_, ""});
    }

    const std::vector<llm::ChatMessage>& messages() const override { return history_; }
    const std::string& model_name() const override { return o_.model; }

    const Speed& speed() const { return speed_; }

private:
    std::vector<std::int32_t> render() const {
        if (o_.raw) return format_.raw(history_.back().content);
        llm::ChatOptions options;
        if (o_.no_think) options.enable_thinking = false;
        return format_.chat(history_, options);
    }

    // The conversation's tokens. When it leaves too little room for an answer (-n tokens, at
    // most a quarter of the context), the oldest turns (a user message and its answer) are
    // dropped with a warning, as llama.cpp shifts its context; a single message that does not
    // fit is an error.
    std::vector<std::int32_t> prompt() {
        std::vector<std::int32_t> tokens = render();
        const std::int64_t n_ctx = generator_.session().n_ctx();
        const std::int64_t quarter = std::max<std::int64_t>(1, n_ctx / 4);
        const std::int64_t room = o_.n_predict < 0 ? quarter : std::clamp<std::int64_t>(o_.n_predict, 1, quarter);
        const std::size_t first_turn = system_.empty() ? 0 : 1;
        std::size_t dropped = 0;
        while (static_cast<std::int64_t>(tokens.size()) + room > n_ctx && !o_.raw && history_.size() > first_turn + 1) {
            const auto oldest = history_.begin() + static_cast<std::ptrdiff_t>(first_turn);
            const bool with_answer = history_.size() > first_turn + 2 && (oldest + 1)->role == "assistant";
            history_.erase(oldest, oldest + (with_answer ? 2 : 1));
            dropped += with_answer ? 2 : 1;
            tokens = render();
        }
        if (dropped > 0) {
            spdlog::warn("the conversation no longer fits --ctx {}: dropped the {} oldest messages", n_ctx, dropped);
        }
        // Only --raw text can tokenize to nothing; said here, not as the generator's internal check.
        check(!tokens.empty(), "the prompt is empty: nothing to answer (give some text, or drop --raw)");
        return tokens;
    }

    const ChatCliOptions& o_;
    const bool stdout_is_a_terminal_ = ::isatty(STDOUT_FILENO) == 1;
    std::string system_;
    llm::PromptFormat format_;
    llm::SequenceGenerator generator_;
    llm::Sampler sampler_;
    llm::GenerationOptions generation_;
    std::shared_ptr<const llm::grammar::Grammar> grammar_;
    std::shared_ptr<const llm::grammar::VocabularyIndex> vocabulary_;
    std::vector<llm::ChatMessage> history_;
    Speed speed_;
};

int run_chat(ChatCliOptions o) {
    o.sampling.seed = o.seed ? *o.seed : std::random_device{}();
    o.model = resolve_model(o.model, kBundledChatModel);
    const auto load_start = Clock::now();
    llm::Model model = llm::Model::load(o.model);
    attach_lora_adapters(model, o.lora);
    o.n_ctx = context_size(o.ctx, model.hparams().n_ctx_train, kDefaultContext, "--ctx", PastTrainedLength::Keep);
    Chat chat(model, o);
    // Status lines are log lines, which --quiet silences: the answer alone on stdout.
    spdlog::info("loaded {} ({}, {} layers) in {:.2f} s", printable(o.model), printable(model.hparams().arch_name),
                 model.hparams().n_layer, seconds_since(load_start));
    if (o.prompt) {
        chat.turn(*o.prompt, [] { return false; });
    } else {
        run_repl(chat, *open_line_input());
    }
    const Speed& s = chat.speed();
    spdlog::info("prompt: {} tokens, {:.1f} tok/s; generation: {} tokens, {:.1f} tok/s{}", s.prompt_tokens,
                 s.prompt_s > 0 ? static_cast<double>(s.prompt_tokens) / s.prompt_s : 0.0, s.generated_tokens,
                 s.generate_s > 0 ? static_cast<double>(s.generated_tokens) / s.generate_s : 0.0,
                 acceptance_text(s.drafted_tokens, s.accepted_tokens, s.generated_tokens));
    return 0;
}

}  // namespace

void add_chat_command(CLI::App& forge, CommandTable& commands) {
    auto o = std::make_shared<ChatCliOptions>();
    CLI::App* cmd = forge.add_subcommand("chat", "Chat with a GGUF language model (llama, qwen2, qwen3, qwen3moe, smollm3, phi3, gpt-oss)");
    cmd->add_option("MODEL", o->model, "GGUF model, or 'default': the bundled chat model (also when left out)");
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
    cmd->add_option("--ctx", o->ctx, "Context size in tokens (default 4096, or the model's trained length when smaller)")
        ->check(CLI::Range(std::int64_t{1}, infer::kMaxContext));
    cmd->add_option("--json-schema", o->grammar.json_schema_file, "Answers are JSON valid under this JSON Schema file");
    cmd->add_option("--regex", o->grammar.regex, "Answers match this regular expression (the grammar engine's subset)")->check(regex_pattern());
    cmd->add_option("--grammar-file", o->grammar.grammar_file, "Answers follow this GBNF grammar file (llama.cpp's notation; docs/GRAMMAR.md)");
    cmd->add_option("--kv-type", o->kv_type, "KV cache precision: f16 (default), f32 or q8_0")->check(kv_cache_type());
    add_lora_flag(*cmd, o->lora);
    add_speculation_flags(*cmd, o->speculation);
    commands.add(cmd, [o] { return run_chat(*o); });
}

}  // namespace forge::app
