// `forge bench llm MODEL.gguf [--prompt 128] [--gen 32] [--parallel N[,N...]] [--threads N] [--reps 3]
// [--json]`: language-model speed the way llama-bench measures it. Prefill is one forward pass
// over --prompt random tokens (logits for the last); decode is --gen single-token steps from an
// empty context, each picking the argmax (infer::argmax_rows, vectorized as a greedy engine's:
// a scalar std::max_element over the vocabulary was 1-2% of a step). A warm-up run of each
// comes first; the reported numbers are medians over --reps runs. Peak RSS covers the mapped
// weights actually touched.
//
// --parallel N runs N sequences at once through the engine the scheduler drives (one forward
// pass per step over N slots, models/llm/forward.h), as llama-batched-bench does: prefill is
// one pass over all N prompts, decode is --gen steps of one row per sequence. It reports the
// per-stream rates (prefill_tok_s, decode_tok_s: one sequence's tokens per second) and the
// aggregates (all sequences' tokens per second). A list, --parallel 1,4 (llama-batched-bench's
// -npl), loads the model once and measures the counts in turn within every repetition, so that
// their ratio is not one process's memory placement against another's: the JSON then holds one
// object per count under "runs", each with aggregate_decode_vs_first.
//
// Speculative decoding (--spec lookup|draft|off, --model-draft, --lookup-file, --draft-max,
// --draft-min-p, app/speculation_flags.h): decode is then one generation of --gen tokens after
// the --prompt tokens through the engine's generator (models/llm/sequence_generator.h), greedy
// or at --temp with a fixed seed (at 1 even a random model writes text with nothing to look up),
// end-of-generation tokens banned; it reports the acceptance rate and the tokens per pass (each
// pass: the model's own token plus the guesses it accepted). `--spec off` runs the same
// generator without speculation: the baseline to compare with. --text-out F writes the
// generated text, so that `--lookup-file F` can replay it as guesses that are all right.
#include "app/cli_checks.h"
#include "app/bench.h"
#include "app/bench_suites.h"
#include "app/speculation_flags.h"
#include "app/timing.h"
#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "core/infer/batch.h"
#include "core/infer/kv_cache.h"
#include "core/infer/row_ops.h"
#include "models/llm/forward.h"
#include "models/llm/model.h"
#include "models/llm/sequence_generator.h"
#include "models/llm/session.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace forge::app {

namespace {

struct BenchLlmOptions {
    std::string model;
    std::int64_t prompt = 128;
    std::int64_t gen = 32;
    std::vector<std::int64_t> parallel{1};  // stream counts, measured in turn
    int threads = 0;
    int reps = 3;
    bool json = false;
    SpeculationFlags speculation;
    float temperature = 0.0f;  // decode through the generator: 0 greedy
    // Where the generator's text goes (the last repetition's), e.g. to be the --lookup-file of
    // a run that checks verification with guesses that are all right; empty: nowhere.
    std::string text_out;
    // Decode through the generator (with or without speculation): any speculation flag given.
    bool generator() const {
        return speculation.spec || speculation.model_draft || speculation.lookup_file;
    }
};

double peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

std::vector<std::int32_t> random_tokens(std::int64_t count, std::int64_t n_vocab) {
    std::mt19937 rng(1234);
    std::uniform_int_distribution<std::int32_t> id(0, static_cast<std::int32_t>(n_vocab - 1));
    std::vector<std::int32_t> tokens(static_cast<std::size_t>(count));
    for (auto& t : tokens) t = id(rng);
    return tokens;
}

void decode_greedily(llm::Session& session, std::int64_t steps) {
    std::int32_t token = 0;
    for (std::int64_t i = 0; i < steps; ++i) {
        const auto logits = session.eval(std::span(&token, 1));
        std::int64_t best = 0;
        infer::argmax_rows(logits, 1, static_cast<std::int64_t>(logits.size()), std::span(&best, 1));
        token = static_cast<std::int32_t>(best);
    }
}

// The two timed bodies of one stream count: a prefill and a decode, each from empty slots.
class Workload {
public:
    virtual ~Workload() = default;
    virtual void prefill() = 0;
    virtual void decode() = 0;
    virtual double kv_cache_mib() const = 0;
};

// One sequence through a session, as llama-bench runs it: prefill is one pass over the
// prompt, decode --gen single-token steps.
class OneStream final : public Workload {
public:
    OneStream(const llm::Model& model, const BenchLlmOptions& o)
        : session_(model, session_options(o)), prompt_(random_tokens(o.prompt, model.hparams().n_vocab)), gen_(o.gen) {}
    void prefill() override {
        session_.reset();
        session_.eval(prompt_);
    }
    void decode() override {
        session_.reset();
        decode_greedily(session_, gen_);
    }
    double kv_cache_mib() const override { return static_cast<double>(session_.cache().bytes()) / (1 << 20); }

private:
    static llm::SessionOptions session_options(const BenchLlmOptions& o) {
        llm::SessionOptions options;
        options.n_ctx = std::max(o.prompt, o.gen);
        options.n_batch = o.prompt;  // the whole prompt in one pass, as llama-bench's ppN
        return options;
    }
    llm::Session session_;
    std::vector<std::int32_t> prompt_;
    std::int64_t gen_;
};

// N slots through the engine: prefill is one pass over all N prompts, decode --gen steps of
// one row per stream.
class ManyStreams final : public Workload {
public:
    ManyStreams(const llm::Model& model, const BenchLlmOptions& o, std::int64_t streams)
        : streams_(streams), prompt_length_(o.prompt), gen_(o.gen), n_vocab_(model.hparams().n_vocab),
          cache_(llm::make_kv_cache(model, streams, o.prompt + o.gen, infer::KvType::F16)),
          forward_(model, streams * o.prompt, cache_), batch_(streams * o.prompt),
          logits_(static_cast<std::size_t>(streams * n_vocab_)), prompt_(random_tokens(o.prompt, n_vocab_)) {}
    void prefill() override {
        clear();
        for (std::int64_t s = 0; s < streams_; ++s) {
            for (std::int64_t i = 0; i < prompt_length_; ++i)
                batch_.add({prompt_[static_cast<std::size_t>(i)], i, s, i + 1 == prompt_length_});
        }
        forward_.run(batch_.rows(), cache_, logits_);
    }
    // Each stream its own first token, every step one row per stream.
    void decode() override {
        clear();
        std::vector<std::int64_t> tokens(static_cast<std::size_t>(streams_));
        for (std::int64_t s = 0; s < streams_; ++s) tokens[static_cast<std::size_t>(s)] = s;
        for (std::int64_t step = 0; step < gen_; ++step) {
            batch_.clear();
            for (std::int64_t s = 0; s < streams_; ++s)
                batch_.add({static_cast<std::int32_t>(tokens[static_cast<std::size_t>(s)]), step, s, true});
            forward_.run(batch_.rows(), cache_, logits_);
            infer::argmax_rows(logits_, streams_, n_vocab_, tokens);
        }
    }
    double kv_cache_mib() const override { return static_cast<double>(cache_.bytes()) / (1 << 20); }

private:
    void clear() {
        for (std::int64_t s = 0; s < streams_; ++s) cache_.truncate(s, 0);
        batch_.clear();
    }
    std::int64_t streams_, prompt_length_, gen_, n_vocab_;
    infer::KvCache cache_;
    llm::Forward forward_;
    infer::Batch batch_;
    std::vector<float> logits_;
    std::vector<std::int32_t> prompt_;
};

// What one stream count measured: every repetition's seconds of prefill and decode.
struct StreamTimes {
    std::int64_t parallel = 1;
    std::vector<double> prefill_s, decode_s;
    double kv_cache_mib = 0;
};

// What one benchmark of a model measured, each stream count of --parallel in its order.
struct LlmTimes {
    std::string arch;
    double load_s = 0;
    std::vector<StreamTimes> runs;
    // Through the generator: tokens generated, guesses scored and kept (the last repetition).
    std::int64_t generated = 0, drafted = 0, accepted = 0;
};

// Decode as a generation through the engine's generator, with the speculation asked for: each
// repetition's seconds for its --gen tokens.
void time_generator(const llm::Model& model, const BenchLlmOptions& o, LlmTimes& t) {
    StreamTimes& run_times = t.runs.front();
    run_times.decode_s.clear();
    const llm::PromptFormat format(model);
    llm::SequenceGenerator generator(model, format.tokenizer(), {o.prompt + o.gen + 1, std::max<std::int64_t>(o.prompt, 512)},
                                     speculation_options(o.speculation, format.tokenizer()));
    llm::GenerationOptions generation;
    generation.sampling.temperature = o.temperature;
    generation.sampling.seed = 1234;
    generation.max_tokens = o.gen;
    for (std::int32_t id = 0; id < format.tokenizer().n_vocab(); ++id) {
        if (format.tokenizer().is_end_of_generation(id))
            generation.logit_bias.emplace_back(id, -std::numeric_limits<float>::infinity());
    }
    const std::vector<std::int32_t> prompt = random_tokens(o.prompt, format.tokenizer().n_vocab());
    std::string text;
    const auto run = [&] {
        generator.reset();
        text.clear();
        llm::Sampler sampler(generation.sampling, model.hparams().n_vocab);
        const bool keep_text = !o.text_out.empty();
        const llm::GenerationStats stats = generator.generate(prompt, generation, sampler, [&](std::string_view piece) {
            if (keep_text) text += piece;
            return true;
        });
        t.generated = stats.generated_tokens;
        t.drafted = stats.drafted_tokens;
        t.accepted = stats.accepted_tokens;
        return stats.generate_s;
    };
    run();  // the warm-up
    for (int rep = 0; rep < o.reps; ++rep) run_times.decode_s.push_back(run());
    run_times.kv_cache_mib = static_cast<double>(generator.session().cache().bytes()) / (1 << 20);
    if (!o.text_out.empty()) checkpoint::write_file_atomically(o.text_out, text);
}

LlmTimes time_llm(const BenchLlmOptions& o) {
    const auto load_start = std::chrono::steady_clock::now();
    const llm::Model model = llm::Model::load(o.model);
    LlmTimes t;
    t.arch = model.hparams().arch_name;
    t.load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
    std::vector<std::unique_ptr<Workload>> workloads;
    for (const std::int64_t n : o.parallel) {
        if (n == 1)
            workloads.push_back(std::make_unique<OneStream>(model, o));
        else
            workloads.push_back(std::make_unique<ManyStreams>(model, o, n));
    }
    // Every stream count takes its turn in each repetition, so all of them meet the same
    // memory placement and the same load of the machine (whose memory speed moves by 15-25%
    // between two processes: docs/LLM.md); prefill's rounds first, then decode's.
    const auto each = [&](auto phase) {
        std::vector<std::function<void()>> bodies;
        for (const auto& w : workloads) bodies.emplace_back([&w, phase] { ((*w).*phase)(); });
        return time_reps_in_turn(bodies, o.reps);
    };
    const std::vector<std::vector<double>> prefill = each(&Workload::prefill);
    // Through the generator, decode is timed there instead.
    const std::vector<std::vector<double>> decode =
        o.generator() ? std::vector<std::vector<double>>(workloads.size()) : each(&Workload::decode);
    for (std::size_t i = 0; i < workloads.size(); ++i)
        t.runs.push_back({o.parallel[i], prefill[i], decode[i], workloads[i]->kv_cache_mib()});
    if (o.generator()) time_generator(model, o, t);
    return t;
}

// One stream count's rates: per stream (one sequence's tokens per second) and aggregate (all
// sequences' tokens per second), from the medians of its repetitions.
nlohmann::json stream_rates(const BenchLlmOptions& o, const StreamTimes& r, std::int64_t decoded) {
    const double prefill_tok_s = static_cast<double>(o.prompt) / bench::summarize(r.prefill_s).median;
    const double decode_tok_s = static_cast<double>(decoded) / bench::summarize(r.decode_s).median;
    const auto streams = static_cast<double>(r.parallel);
    return {
        {"parallel", r.parallel},
        {"prefill_tok_s", prefill_tok_s},
        {"decode_tok_s", decode_tok_s},
        {"prefill_ms_per_tok", 1e3 / prefill_tok_s},
        {"decode_ms_per_tok", 1e3 / decode_tok_s},
        {"aggregate_prefill_tok_s", streams * prefill_tok_s},
        {"aggregate_decode_tok_s", streams * decode_tok_s},
        {"kv_cache_mib", r.kv_cache_mib},
    };
}

void print_text(const BenchLlmOptions& o, const LlmTimes& t, const nlohmann::json& result) {
    fmt::print("model {} ({}), {} threads, load {:.2f} s\n", printable(o.model), printable(t.arch),
               ThreadPool::global().size(), t.load_s);
    if (o.parallel.size() > 1) {
        for (const nlohmann::json& run : result["runs"]) {
            const auto streams = run["parallel"].get<std::int64_t>();
            fmt::print("{:>3} stream{}: prefill pp{} {:.1f} tok/s, decode tg{} {:.1f} tok/s per stream; aggregate "
                       "{:.1f} and {:.1f} tok/s, decode {:.2f}x the first\n",
                       streams, streams == 1 ? " " : "s", o.prompt, run["prefill_tok_s"].get<double>(), o.gen,
                       run["decode_tok_s"].get<double>(), run["aggregate_prefill_tok_s"].get<double>(),
                       run["aggregate_decode_tok_s"].get<double>(), run["aggregate_decode_vs_first"].get<double>());
        }
        fmt::print("peak RSS {:.0f} MiB\n", result["peak_rss_mib"].get<double>());
        return;
    }
    const double prefill_tok_s = result["prefill_tok_s"], decode_tok_s = result["decode_tok_s"];
    fmt::print("prefill pp{}: {:.1f} tok/s ({:.2f} ms/tok)\n", o.prompt, prefill_tok_s, 1e3 / prefill_tok_s);
    fmt::print("decode  tg{}: {:.1f} tok/s ({:.2f} ms/tok){}\n", o.gen, decode_tok_s, 1e3 / decode_tok_s,
               o.generator() ? fmt::format(", spec {}{}", result["spec"].get<std::string>(),
                                           acceptance_text(t.drafted, t.accepted, t.generated))
                             : std::string());
    if (o.parallel.front() > 1) {
        fmt::print("{} streams: aggregate prefill {:.1f} tok/s, aggregate decode {:.1f} tok/s (rates above: per stream)\n",
                   o.parallel.front(), result["aggregate_prefill_tok_s"].get<double>(),
                   result["aggregate_decode_tok_s"].get<double>());
    }
    fmt::print("peak RSS {:.0f} MiB (KV cache {:.1f} MiB)\n", result["peak_rss_mib"].get<double>(),
               result["kv_cache_mib"].get<double>());
}

int run_bench_llm(const BenchLlmOptions& o) {
    if (o.threads > 0) ThreadPool::set_global_threads(o.threads);
    const LlmTimes t = time_llm(o);
    nlohmann::json result = {
        {"model", o.model},
        {"arch", t.arch},
        {"threads", ThreadPool::global().size()},
        {"prompt", o.prompt},
        {"gen", o.gen},
        {"reps", o.reps},
        {"load_s", t.load_s},
    };
    if (t.runs.size() == 1) {
        result.update(stream_rates(o, t.runs.front(), o.generator() ? t.generated : o.gen));
    } else {
        // Several stream counts, measured in turn: one object each, with its aggregate decode
        // against the first count's (e.g. --parallel 1,4: four streams against one).
        nlohmann::json runs = nlohmann::json::array();
        for (const StreamTimes& r : t.runs) runs.push_back(stream_rates(o, r, o.gen));
        for (nlohmann::json& run : runs)
            run["aggregate_decode_vs_first"] =
                run["aggregate_decode_tok_s"].get<double>() / runs.front()["aggregate_decode_tok_s"].get<double>();
        result["runs"] = std::move(runs);
    }
    result["peak_rss_mib"] = peak_rss_mib();
    if (o.generator()) {
        result["spec"] = o.speculation.spec.value_or(o.speculation.model_draft ? "draft" : "lookup");
        result["temperature"] = o.temperature;
        result["generated"] = t.generated;
        result["drafted"] = t.drafted;
        result["accepted"] = t.accepted;
        result["acceptance"] = t.drafted > 0 ? static_cast<double>(t.accepted) / static_cast<double>(t.drafted) : 0.0;
        // Passes: one per token the model chose itself; the accepted guesses came free.
        result["tokens_per_pass"] =
            static_cast<double>(t.generated) / static_cast<double>(std::max<std::int64_t>(1, t.generated - t.accepted));
    }
    if (o.json)
        fmt::print("{}\n", result.dump(2));
    else
        print_text(o, t, result);
    return 0;
}

}  // namespace

std::vector<bench::Row> llm_rows(const BenchPlan& plan, const std::string& model) {
    BenchLlmOptions o;
    o.model = model;
    o.prompt = plan.full ? 128 : 64;
    o.gen = plan.full ? 32 : 16;
    o.reps = plan.reps;
    const LlmTimes t = time_llm(o);
    const std::string name = std::filesystem::path(model).stem().string();
    const nlohmann::ordered_json extra = {
        {"params", {{"model", model}, {"arch", t.arch}, {"threads", ThreadPool::global().size()}, {"load_s", t.load_s}}}};
    const StreamTimes& one = t.runs.front();
    return {rate_row(fmt::format("llm/{} prefill pp{}", name, o.prompt), "tok/s", static_cast<double>(o.prompt), one.prefill_s, extra),
            rate_row(fmt::format("llm/{} decode tg{}", name, o.gen), "tok/s", static_cast<double>(o.gen), one.decode_s, extra)};
}

void add_bench_llm_command(CLI::App& bench, CommandTable& commands) {
    auto o = std::make_shared<BenchLlmOptions>();
    CLI::App* cmd = bench.add_subcommand("llm", "Prefill and decode speed of a GGUF language model");
    cmd->add_option("MODEL", o->model, "GGUF model (llama, qwen2, qwen3, qwen3moe, smollm3, phi3, gpt-oss)")->required();
    cmd->add_option("--prompt", o->prompt, "Prompt tokens for the prefill test (default 128)")
        ->check(CLI::Range(std::int64_t{1}, infer::kMaxContext));
    cmd->add_option("--gen", o->gen, "Decoded tokens for the generation test (default 32)")
        ->check(CLI::Range(std::int64_t{1}, infer::kMaxContext));
    cmd->add_option("--parallel", o->parallel,
                    "Sequences at once, each with its own prompt and decode (default 1); a list (1,4) measures each "
                    "count in turn in one run and compares their aggregate decode with the first's")
        ->delimiter(',')
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{256}));
    cmd->add_option("--threads", o->threads, "Worker threads (default: the global --threads)")
        ->check(CLI::Range(1, ThreadPool::kMaxThreads));
    cmd->add_option("--reps", o->reps, "Measured repetitions after the warm-up (default 3)")->check(CLI::Range(1, 1000));
    cmd->add_flag("--json", o->json, "Print the results as JSON");
    add_speculation_flags(*cmd, o->speculation);
    cmd->add_option("--temp", o->temperature,
                    "With a speculation flag: decode at this temperature (seed 1234; default 0, greedy)")
        ->check(CLI::Range(0.0f, 2.0f));
    cmd->add_option("--text-out", o->text_out,
                    "With a speculation flag: write the generated text (of the last repetition) to this file, e.g. "
                    "as the --lookup-file of another run");
    commands.add(cmd, [o] {
        check(o->parallel == std::vector<std::int64_t>{1} || !o->generator(),
              "--spec, --model-draft and --lookup-file need --parallel 1");
        check(o->text_out.empty() || o->generator(), "--text-out needs --spec, --model-draft or --lookup-file");
        return run_bench_llm(*o);
    });
}

}  // namespace forge::app
