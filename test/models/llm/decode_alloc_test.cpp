// Decoding allocates nothing per token: after a warm-up, every further token runs in the
// buffers the Session made up front. This executable replaces the global operator new to count.
#include "core/thread_pool.h"
#include "models/llm/model.h"
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
    for (const char* name : {"qwen3-q8_0", "llama-f32", "qwen2-q4_0", "llama-q4_k"}) {
        const Model model = Model::load(test::golden_path(std::string(name) + ".gguf"));
        for (KvType kv : {KvType::F16, KvType::F32}) {
            SessionOptions options;
            options.n_ctx = 64;
            options.kv_type = kv;
            Session session(model, options);
            const std::vector<std::int32_t> prompt = {1, 2, 3, 4, 5};
            session.eval(prompt);
            std::int32_t token = 7;
            for (int i = 0; i < 4; ++i) session.eval(std::span(&token, 1));  // warm-up: per-thread scratch grows
            const long before = g_allocations.load();
            for (int i = 0; i < 32; ++i) session.eval(std::span(&token, 1));
            // A worker that sat out the warm-up (the machine is busy) sizes its per-thread
            // scratch on its first task: at most a few one-off allocations per thread, never
            // one per token.
            EXPECT_LE(g_allocations.load() - before, 3 * ThreadPool::global().size()) << name;
        }
    }
}

}  // namespace
}  // namespace forge::llm
