// Decoding allocates nothing per token: after a warm-up, every further token (sampling it and
// running the model on it) works in the buffers the Session and the Sampler made up front; a
// steady-state step of the scheduler (two sequences decoding) allocates nothing either.
// This executable replaces the global operator new to count.
#include "models/llm/model.h"
#include "models/llm/sampler.h"
#include "models/llm/scheduler.h"
#include "models/llm/session.h"
#include "test/models/llm/golden.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace forge::llm {
namespace {

TEST(LlmDecode, AllocatesNothingPerToken) {
    for (const char* name :
         {"qwen3-q8_0", "llama-f32", "qwen2-q4_0", "llama-q4_k", "qwen3-q4_k_m", "qwen3moe-q8_0", "qwen3moe-f32"}) {
        const Model model = Model::load(test::golden_path(std::string(name) + ".gguf"));
        for (KvType kv : {KvType::F16, KvType::F32}) {
            SessionOptions options;
            options.n_ctx = 64;
            options.kv_type = kv;
            Session session(model, options);
            SamplerOptions sampling;  // the full chain: penalties, top-k, top-p, min-p, draw
            sampling.repeat_penalty = 1.1f;
            sampling.seed = 7;
            Sampler sampler(sampling, model.hparams().n_vocab);
            const std::vector<std::int32_t> prompt = {1, 2, 3, 4, 5};
            std::span<const float> logits = session.eval(prompt);
            const auto decode = [&](int tokens) {
                for (int i = 0; i < tokens; ++i) {
                    const std::int32_t token = sampler.sample(logits);
                    sampler.accept(token);
                    logits = session.eval(std::span(&token, 1));
                }
            };
            decode(2);  // warm-up
            const long before = g_allocations.load();
            decode(32);
            EXPECT_EQ(g_allocations.load() - before, 0) << name;
        }
    }
}

TEST(SchedulerStep, AllocatesNothingInSteadyState) {
    for (const char* name : {"qwen3-q8_0", "llama-f32", "qwen2-q4_0", "qwen3moe-q4_k_m"}) {
        const Model model = Model::load(test::golden_path(std::string(name) + ".gguf"));
        const Tokenizer tokenizer = Tokenizer::from_gguf(model.file());
        SchedulerOptions options;
        options.n_slots = 2;
        options.n_ctx = 64;
        options.n_batch = 16;
        Scheduler scheduler(model, tokenizer, options);
        std::vector<std::shared_ptr<RequestHandle>> handles;
        for (std::uint64_t seed : {1u, 2u}) {
            Request r;
            r.prompt = {1, 2, 3, 4, 5, static_cast<std::int32_t>(seed)};
            r.generation.max_tokens = 40;
            r.generation.sampling.seed = seed;
            r.generation.sampling.repeat_penalty = 1.1f;
            handles.push_back(scheduler.submit(r));
        }
        for (int i = 0; i < 4; ++i) scheduler.step();  // prompts read, both decoding
        const long before = g_allocations.load();
        for (int i = 0; i < 16; ++i) scheduler.step();
        EXPECT_EQ(g_allocations.load() - before, 0) << name;
        scheduler.run_until_idle();
        for (const auto& h : handles) EXPECT_GT(h->wait().stats.generated_tokens, 16) << name;  // decoding throughout
    }
}

}  // namespace
}  // namespace forge::llm
