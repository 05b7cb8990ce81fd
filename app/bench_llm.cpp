// `forge bench llm MODEL.gguf [--prompt 128] [--gen 32] [--threads N] [--reps 3] [--json]`:
// language-model speed the way llama-bench measures it. Prefill is one forward pass over
// --prompt random tokens (logits for the last); decode is --gen single-token steps from an
// empty context, each picking the argmax. A warm-up run of each comes first; the reported
// numbers are medians over --reps runs. Peak RSS covers the mapped weights actually touched.
#include "app/bench.h"
#include "app/timing.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "models/llm/model.h"
#include "models/llm/session.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <vector>

namespace forge::app {

namespace {

struct BenchLlmOptions {
    std::string model;
    std::int64_t prompt = 128;
    std::int64_t gen = 32;
    int threads = 0;
    int reps = 3;
    bool json = false;
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

void decode(llm::Session& session, std::int64_t steps) {
    std::int32_t token = 0;
    for (std::int64_t i = 0; i < steps; ++i) {
        const auto logits = session.eval(std::span(&token, 1));
        token = static_cast<std::int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    }
}

int run_bench_llm(const BenchLlmOptions& o) {
    check(o.prompt > 0 && o.gen > 0 && o.reps > 0, "--prompt, --gen and --reps must be positive");
    if (o.threads > 0) ThreadPool::set_global_threads(o.threads);
    const auto load_start = std::chrono::steady_clock::now();
    const llm::Model model = llm::Model::load(o.model);
    const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();

    llm::SessionOptions options;
    options.n_ctx = std::max(o.prompt, o.gen);
    options.n_batch = o.prompt;  // the whole prompt in one pass, as llama-bench's ppN
    llm::Session session(model, options);
    const std::vector<std::int32_t> prompt = random_tokens(o.prompt, model.hparams().n_vocab);

    const double prefill_s = median_seconds([&] { session.reset(); session.eval(prompt); }, o.reps);
    const double decode_s = median_seconds([&] { session.reset(); decode(session, o.gen); }, o.reps);

    const double prefill_tok_s = static_cast<double>(o.prompt) / prefill_s;
    const double decode_tok_s = static_cast<double>(o.gen) / decode_s;
    const nlohmann::json result = {
        {"model", o.model},
        {"arch", model.hparams().arch_name},
        {"threads", ThreadPool::global().size()},
        {"prompt", o.prompt},
        {"gen", o.gen},
        {"reps", o.reps},
        {"load_s", load_s},
        {"prefill_tok_s", prefill_tok_s},
        {"decode_tok_s", decode_tok_s},
        {"prefill_ms_per_tok", 1e3 / prefill_tok_s},
        {"decode_ms_per_tok", 1e3 / decode_tok_s},
        {"kv_cache_mib", static_cast<double>(session.cache().bytes()) / (1 << 20)},
        {"peak_rss_mib", peak_rss_mib()},
    };
    if (o.json) {
        fmt::print("{}\n", result.dump(2));
    } else {
        fmt::print("model {} ({}), {} threads, load {:.2f} s\n", o.model, model.hparams().arch_name,
                   ThreadPool::global().size(), load_s);
        fmt::print("prefill pp{}: {:.1f} tok/s ({:.2f} ms/tok)\n", o.prompt, prefill_tok_s, 1e3 / prefill_tok_s);
        fmt::print("decode  tg{}: {:.1f} tok/s ({:.2f} ms/tok)\n", o.gen, decode_tok_s, 1e3 / decode_tok_s);
        fmt::print("peak RSS {:.0f} MiB (KV cache {:.1f} MiB)\n", peak_rss_mib(),
                   static_cast<double>(session.cache().bytes()) / (1 << 20));
    }
    return 0;
}

}  // namespace

void add_bench_llm_command(CLI::App& bench, CommandTable& commands) {
    auto o = std::make_shared<BenchLlmOptions>();
    CLI::App* cmd = bench.add_subcommand("llm", "Prefill and decode speed of a GGUF language model");
    cmd->add_option("MODEL", o->model, "GGUF model (llama, qwen2, qwen3)")->required();
    cmd->add_option("--prompt", o->prompt, "Prompt tokens for the prefill test (default 128)");
    cmd->add_option("--gen", o->gen, "Decoded tokens for the generation test (default 32)");
    cmd->add_option("--threads", o->threads, "Worker threads (default: the global --threads)")
        ->check(CLI::Range(1, ThreadPool::kMaxThreads));
    cmd->add_option("--reps", o->reps, "Measured repetitions after the warm-up (default 3)");
    cmd->add_flag("--json", o->json, "Print the results as JSON");
    commands.add(cmd, [o] { return run_bench_llm(*o); });
}

}  // namespace forge::app
