// The engine for many sequences: the stateless forward pass over a slotted KV cache, and the
// scheduler (continuous batching) on top of it.
//
// Same bits: a sequence's logits are compared with memcmp between running alone (one slot,
// its prompt in one pass, then one row per step) and batched with other sequences (other
// slots' rows before and after it, prompts cut in other chunks), at 1 and 3 threads, for every
// weight type of the committed goldens and every KV cache type. Then the scheduler's own
// promises: batched == alone token for token, slot and prefix reuse, cancellation mid-prefill
// and mid-decode, a prompt too long for the context, a full queue, and the threaded mode.
#include "core/infer/batch.h"
#include "core/thread_pool.h"
#include "models/llm/forward.h"
#include "models/llm/model.h"
#include "models/llm/scheduler.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "test/models/llm/golden.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

namespace forge::llm {
namespace {

using infer::Batch;
using infer::BatchRow;
using infer::KvType;

constexpr const char* kModels[] = {"llama-f32",     "qwen3-f16",     "qwen3-q8_0",      "qwen2-q4_0",   "llama-q4_k",
                                   "qwen3-q6_k",    "qwen3-yarn",    "qwen3moe-f32",    "qwen3moe-q8_0", "qwen3moe-q4_0",
                                   "qwen3moe-q4_k_m", "smollm3-q8_0", "phi3-f32",        "phi3-q8_0",
                                   "gpt-oss-f32",     "gpt-oss-mxfp4",   "gemma3-f32",   "gemma3-q8_0",
                                   "gpt-oss-window8"};

const std::vector<std::vector<std::int32_t>> kPrompts = {
    {72, 101, 108, 108, 111, 44, 256, 300, 350, 400, 450, 500, 12},
    {33, 261, 270, 280, 290},
    {310, 320, 330, 340, 509, 77, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19},
};

std::int32_t argmax(std::span<const float> row) {
    return static_cast<std::int32_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

// Every logits row of one sequence: after its prompt, then after each of `steps` greedy tokens.
using Trace = std::vector<std::vector<float>>;

// One sequence alone in a one-slot cache: the whole prompt in one pass, then one row a step.
Trace run_alone(const Model& model, KvType kv, const std::vector<std::int32_t>& prompt, int steps) {
    const auto n_vocab = static_cast<std::size_t>(model.hparams().n_vocab);
    infer::KvCache cache = make_kv_cache(model, 1, 64, kv);
    Forward forward(model, 32, cache);
    Batch batch(32);
    for (std::size_t i = 0; i < prompt.size(); ++i) {
        batch.add({prompt[i], static_cast<std::int64_t>(i), 0, i + 1 == prompt.size()});
    }
    Trace trace(1, std::vector<float>(n_vocab));
    forward.run(batch.rows(), cache, trace.back());
    for (int s = 0; s < steps; ++s) {
        const std::int32_t next = argmax(trace.back());
        batch.clear();
        batch.add({next, cache.length(0), 0, true});
        trace.emplace_back(n_vocab);
        forward.run(batch.rows(), cache, trace.back());
    }
    return trace;
}

// All sequences at once, sequence i in slot 2 - i (another slot than alone): each pass takes one
// decode row of every sequence past its prompt, then prompt rows up to `budget`.
std::vector<Trace> run_batched(const Model& model, KvType kv, const std::vector<std::vector<std::int32_t>>& prompts,
                               int steps, std::int64_t budget) {
    const auto n_vocab = static_cast<std::size_t>(model.hparams().n_vocab);
    const auto n = static_cast<std::int64_t>(prompts.size());
    infer::KvCache cache = make_kv_cache(model, n, 64, kv);
    Forward forward(model, budget + n, cache);
    Batch batch(budget + n);
    std::vector<Trace> traces(prompts.size());
    std::vector<std::size_t> read(prompts.size(), 0);
    std::vector<float> logits((budget + n) * n_vocab);
    const auto slot_of = [&](std::size_t i) { return n - 1 - static_cast<std::int64_t>(i); };
    while (true) {
        batch.clear();
        std::vector<std::size_t> owners;
        for (std::size_t i = 0; i < prompts.size(); ++i) {
            if (read[i] < prompts[i].size() || traces[i].empty() || static_cast<int>(traces[i].size()) > steps) continue;
            batch.add({argmax(traces[i].back()), cache.length(slot_of(i)), slot_of(i), true});
            owners.push_back(i);
        }
        for (std::size_t i = 0; i < prompts.size(); ++i) {
            while (read[i] < prompts[i].size() && batch.size() < budget + n) {
                const bool last = read[i] + 1 == prompts[i].size();
                batch.add({prompts[i][read[i]], static_cast<std::int64_t>(read[i]), slot_of(i), last});
                if (last) owners.push_back(i);
                ++read[i];
            }
        }
        if (batch.empty()) break;
        forward.run(batch.rows(), cache, std::span(logits).first(owners.size() * n_vocab));
        for (std::size_t j = 0; j < owners.size(); ++j) {
            traces[owners[j]].emplace_back(logits.begin() + static_cast<std::ptrdiff_t>(j * n_vocab),
                                           logits.begin() + static_cast<std::ptrdiff_t>((j + 1) * n_vocab));
        }
    }
    return traces;
}

void expect_same_bits(const Trace& alone, const Trace& batched, const std::string& what) {
    ASSERT_EQ(alone.size(), batched.size()) << what;
    for (std::size_t step = 0; step < alone.size(); ++step) {
        EXPECT_EQ(std::memcmp(alone[step].data(), batched[step].data(), alone[step].size() * sizeof(float)), 0)
            << what << ", logits after step " << step;
    }
}

TEST(SameBits, BatchedLogitsEqualAloneForEveryWeightAndKvType) {
    constexpr int kSteps = 6;
    for (const char* name : kModels) {
        const Model model = Model::load(test::golden_path(std::string(name) + ".gguf"));
        for (const KvType kv : {KvType::F32, KvType::F16, KvType::Q8_0}) {
            if (kv == KvType::Q8_0 && model.hparams().head_dim % 32 != 0) continue;
            ThreadPool::set_global_threads(1);
            std::vector<Trace> alone;
            for (const auto& prompt : kPrompts) alone.push_back(run_alone(model, kv, prompt, kSteps));
            ThreadPool::set_global_threads(3);
            for (const std::int64_t budget : {4, 9, 64}) {
                const std::vector<Trace> batched = run_batched(model, kv, kPrompts, kSteps, budget);
                for (std::size_t i = 0; i < kPrompts.size(); ++i) {
                    expect_same_bits(alone[i], batched[i],
                                     fmt::format("{} kv {} budget {} sequence {}", name, static_cast<int>(kv), budget, i));
                }
            }
            ThreadPool::set_global_threads(ThreadPool::default_threads());
        }
    }
}

TEST(KvCacheSlots, CopiedPrefixContinuesLikeTheOriginal) {
    const Model model = Model::load(test::golden_path("qwen3-q8_0.gguf"));
    const auto n_vocab = static_cast<std::size_t>(model.hparams().n_vocab);
    infer::KvCache cache = make_kv_cache(model, 2, 64, KvType::F16);
    Forward forward(model, 32, cache);
    Batch batch(32);
    const auto& prompt = kPrompts[2];
    for (std::size_t i = 0; i < prompt.size(); ++i) batch.add({prompt[i], static_cast<std::int64_t>(i), 0, false});
    forward.run(batch.rows(), cache, {});
    cache.copy_prefix(0, 1, 10);
    EXPECT_EQ(cache.length(1), 10);
    std::vector<float> a(n_vocab), b(n_vocab);
    batch.clear();
    batch.add({prompt[10], 10, 1, true});
    forward.run(batch.rows(), cache, a);
    cache.truncate(0, 10);
    batch.clear();
    batch.add({prompt[10], 10, 0, true});
    forward.run(batch.rows(), cache, b);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
    EXPECT_THROW(cache.copy_prefix(0, 1, 12), Error);  // slot 0 holds 11 now
}

TEST(ForwardChecks, RejectsGapsAndOverflowBeforeTouchingTheCache) {
    const Model model = Model::load(test::golden_path("qwen3-q8_0.gguf"));
    infer::KvCache cache = make_kv_cache(model, 2, 8, KvType::F16);
    Forward forward(model, 16, cache);
    const BatchRow gap[] = {{1, 1, 0, false}};
    EXPECT_THROW(forward.run(gap, cache, {}), Error);
    const BatchRow bad_slot[] = {{1, 0, 2, false}};
    EXPECT_THROW(forward.run(bad_slot, cache, {}), Error);
    std::vector<BatchRow> too_long;
    for (int i = 0; i < 9; ++i) too_long.push_back({1, i, 0, false});
    EXPECT_THROW(forward.run(too_long, cache, {}), Error);
    EXPECT_EQ(cache.length(0), 0);
    infer::KvCache longer = make_kv_cache(model, 2, 16, KvType::F16);  // its scratch holds 8 positions
    const BatchRow first[] = {{1, 0, 0, false}};
    EXPECT_THROW(forward.run(first, longer, {}), Error);
}

// --- the scheduler ---------------------------------------------------------------------------

struct Fixture {
    Model model;
    Tokenizer tokenizer;
    explicit Fixture(const std::string& name)
        : model(Model::load(test::golden_path(name + ".gguf"))), tokenizer(Tokenizer::from_gguf(model.file())) {}
};

Request request(const std::vector<std::int32_t>& prompt, std::int64_t max_tokens, std::uint64_t seed = 1) {
    Request r;
    r.prompt = prompt;
    r.generation.max_tokens = max_tokens;
    r.generation.sampling.seed = seed;
    r.generation.sampling.temperature = 0.9f;  // sampled, so equality also covers the random streams
    return r;
}

SchedulerOptions slots(std::int64_t n_slots, std::int64_t n_batch, std::int64_t n_ctx = 64) {
    SchedulerOptions o;
    o.n_slots = n_slots;
    o.n_batch = n_batch;
    o.n_ctx = n_ctx;
    return o;
}

RequestResult run_one(const Fixture& f, const Request& r) {
    Scheduler scheduler(f.model, f.tokenizer, slots(1, 512));
    const auto handle = scheduler.submit(r);
    scheduler.run_until_idle();
    return handle->wait();
}

TEST(Scheduler, BatchedTokensEqualAlone) {
    for (const char* name : {"qwen3-q8_0", "llama-q4_k", "qwen2-q4_0", "qwen3-f16", "qwen3moe-q8_0", "gpt-oss-mxfp4"}) {
        const Fixture f(name);
        std::vector<RequestResult> alone;
        for (std::size_t i = 0; i < kPrompts.size(); ++i) alone.push_back(run_one(f, request(kPrompts[i], 12, i + 1)));
        Scheduler scheduler(f.model, f.tokenizer, slots(2, 5));  // 3 requests, 2 slots: one waits
        std::vector<std::shared_ptr<RequestHandle>> handles;
        for (std::size_t i = 0; i < kPrompts.size(); ++i) handles.push_back(scheduler.submit(request(kPrompts[i], 12, i + 1)));
        scheduler.run_until_idle();
        for (std::size_t i = 0; i < kPrompts.size(); ++i) {
            const RequestResult r = handles[i]->wait();
            EXPECT_EQ(r.tokens, alone[i].tokens) << name << " request " << i;
            EXPECT_EQ(r.text, alone[i].text) << name << " request " << i;
            EXPECT_EQ(r.stats.generated_tokens, 12);
            EXPECT_EQ(r.stats.finish, FinishReason::MaxTokens);
        }
    }
}

TEST(Scheduler, ReusesTheSlotWithTheLongestPrefixAndReportsIt) {
    const Fixture f("qwen3-q8_0");
    Scheduler scheduler(f.model, f.tokenizer, slots(2, 512));
    const auto first = scheduler.submit(request(kPrompts[0], 4));
    scheduler.run_until_idle();
    const RequestResult a = first->wait();
    EXPECT_EQ(a.stats.cached_tokens, 0);
    // Another prompt goes to the other (never used) slot; then the first prompt's extension
    // finds its prefix in the first slot.
    const auto other = scheduler.submit(request(kPrompts[1], 4));
    scheduler.run_until_idle();
    EXPECT_NE(other->wait().slot, a.slot);
    std::vector<std::int32_t> longer = kPrompts[0];
    longer.insert(longer.end(), {7, 8, 9});
    const auto second = scheduler.submit(request(longer, 4, 3));
    scheduler.run_until_idle();
    const RequestResult b = second->wait();
    EXPECT_EQ(b.slot, a.slot);
    EXPECT_EQ(b.stats.cached_tokens, static_cast<std::int64_t>(kPrompts[0].size()));
    EXPECT_EQ(b.tokens, run_one(f, request(longer, 4, 3)).tokens);  // the reused prefix changes nothing
}

TEST(Scheduler, LeastRecentlyUsedSlotWhenNoPrefixMatches) {
    const Fixture f("qwen3-q8_0");
    Scheduler scheduler(f.model, f.tokenizer, slots(2, 512));
    const auto a = scheduler.submit(request(kPrompts[0], 2));
    scheduler.run_until_idle();
    const auto b = scheduler.submit(request(kPrompts[1], 2));
    scheduler.run_until_idle();
    const auto c = scheduler.submit(request({400, 401, 402}, 2));  // shares nothing: the older slot
    scheduler.run_until_idle();
    EXPECT_EQ(c->wait().slot, a->wait().slot);
    EXPECT_NE(b->wait().slot, a->wait().slot);
}

TEST(Scheduler, CopiesALongerPrefixFromABusySlot) {
    const Fixture f("qwen3-q8_0");
    Scheduler scheduler(f.model, f.tokenizer, slots(2, 512));
    const auto busy = scheduler.submit(request(kPrompts[2], 30));
    scheduler.step();
    scheduler.step();
    std::vector<std::int32_t> shared(kPrompts[2].begin(), kPrompts[2].begin() + 15);
    shared.push_back(3);
    const auto copier = scheduler.submit(request(shared, 5, 9));
    scheduler.run_until_idle();
    const RequestResult r = copier->wait();
    EXPECT_EQ(r.stats.cached_tokens, 15);
    EXPECT_NE(r.slot, busy->wait().slot);
    EXPECT_EQ(r.tokens, run_one(f, request(shared, 5, 9)).tokens);
}

TEST(Scheduler, CancelMidPrefillFreesTheSlot) {
    const Fixture f("qwen3-q8_0");
    Scheduler scheduler(f.model, f.tokenizer, slots(1, 4));  // 4 rows a step: a 21-token prompt takes 6
    const auto handle = scheduler.submit(request(kPrompts[2], 8));
    scheduler.step();
    scheduler.step();
    handle->cancel();
    const auto next = scheduler.submit(request(kPrompts[1], 3));
    scheduler.run_until_idle();
    const RequestResult r = handle->wait();
    EXPECT_EQ(r.stats.finish, FinishReason::Cancelled);
    EXPECT_EQ(r.stats.generated_tokens, 0);
    EXPECT_EQ(next->wait().stats.generated_tokens, 3);  // the one slot was free again
}

TEST(Scheduler, CancelMidDecodeFromTheSinkOrTheHandle) {
    const Fixture f("qwen3-q8_0");
    Scheduler scheduler(f.model, f.tokenizer, slots(2, 64));
    int pieces = 0;
    Request by_sink = request(kPrompts[0], 40);
    by_sink.sink = [&](std::string_view) { return ++pieces < 3; };
    const auto a = scheduler.submit(by_sink);
    const auto b = scheduler.submit(request(kPrompts[1], 40));
    for (int i = 0; i < 5; ++i) scheduler.step();
    b->cancel();
    scheduler.run_until_idle();
    const RequestResult ra = a->wait(), rb = b->wait();
    EXPECT_EQ(ra.stats.finish, FinishReason::Cancelled);
    EXPECT_EQ(rb.stats.finish, FinishReason::Cancelled);
    EXPECT_LT(rb.stats.generated_tokens, 40);
    EXPECT_GT(rb.stats.generated_tokens, 0);
}

TEST(Scheduler, APromptTooLongFailsAloneNamingBothNumbers) {
    const Fixture f("qwen3-q8_0");
    Scheduler scheduler(f.model, f.tokenizer, slots(2, 64, 16));
    const auto ok = scheduler.submit(request(kPrompts[1], 4));
    const auto too_long = scheduler.submit(request(kPrompts[2], 4));
    scheduler.run_until_idle();
    EXPECT_THAT(too_long->wait().error, ::testing::HasSubstr("21 tokens, more than the context of 16"));
    EXPECT_EQ(ok->wait().stats.generated_tokens, 4);
    // Generation stops when the slot's context is full.
    const auto fills = scheduler.submit(request(kPrompts[0], 100));
    scheduler.run_until_idle();
    EXPECT_EQ(fills->wait().stats.finish, FinishReason::ContextFull);
}

TEST(Scheduler, AFullQueueRefusesAtOnce) {
    const Fixture f("qwen3-q8_0");
    SchedulerOptions o = slots(1, 64);
    o.max_queue = 2;
    Scheduler scheduler(f.model, f.tokenizer, o);
    scheduler.submit(request(kPrompts[0], 2));
    scheduler.submit(request(kPrompts[1], 2));
    EXPECT_THROW(scheduler.submit(request(kPrompts[2], 2)), QueueFull);
    scheduler.run_until_idle();
    EXPECT_NO_THROW(scheduler.submit(request(kPrompts[2], 2)));
}

TEST(Scheduler, OwnThreadServesSubmittersOnOtherThreads) {
    const Fixture f("llama-q4_k");
    std::vector<RequestResult> alone;
    for (std::size_t i = 0; i < kPrompts.size(); ++i) alone.push_back(run_one(f, request(kPrompts[i], 10, i + 1)));
    Scheduler scheduler(f.model, f.tokenizer, slots(2, 8));
    scheduler.start();
    std::vector<RequestResult> results(kPrompts.size());
    std::vector<std::thread> clients;
    for (std::size_t i = 0; i < kPrompts.size(); ++i) {
        clients.emplace_back([&, i] { results[i] = scheduler.submit(request(kPrompts[i], 10, i + 1))->wait(); });
    }
    for (auto& c : clients) c.join();
    scheduler.stop();
    for (std::size_t i = 0; i < kPrompts.size(); ++i) EXPECT_EQ(results[i].tokens, alone[i].tokens) << i;
}

// --- gemma3's sliding-window rings ------------------------------------------------------------

// A sequence through a cache whose sliding-window layers keep rings of window + pass - 1 rows:
// the prompt in passes of `pass` rows, then greedy steps, each drafting `draft` tokens (the
// greedy ones of a reference trace, so the rollback keeps some and drops the rest).
Trace run_ring(const Model& model, KvType kv, const std::vector<std::int32_t>& prompt, int steps, std::int64_t pass,
               std::int64_t n_ctx) {
    const auto n_vocab = static_cast<std::size_t>(model.hparams().n_vocab);
    infer::KvCache cache = make_kv_cache(model, 1, n_ctx, kv, pass);
    Forward forward(model, pass, cache);
    Batch batch(pass);
    Trace trace(1, std::vector<float>(n_vocab));
    for (std::size_t at = 0; at < prompt.size(); at += static_cast<std::size_t>(pass)) {
        batch.clear();
        for (std::size_t i = at; i < std::min(prompt.size(), at + static_cast<std::size_t>(pass)); ++i) {
            batch.add({prompt[i], static_cast<std::int64_t>(i), 0, i + 1 == prompt.size()});
        }
        forward.run(batch.rows(), cache, batch.rows().back().wants_logits ? std::span(trace.back()) : std::span<float>());
    }
    std::vector<float> rolled(n_vocab * static_cast<std::size_t>(pass));
    for (int s = 0; s < steps; ++s) {
        const std::int32_t next = argmax(trace.back());
        // The next token and a wrong guess after it, then the guess rolled back.
        batch.clear();
        batch.add({next, cache.length(0), 0, true});
        if (pass > 1) batch.add({(next + 1) % 500, cache.length(0) + 1, 0, true});
        forward.run(batch.rows(), cache, std::span(rolled).first(batch.size() * n_vocab));
        if (pass > 1) cache.truncate(0, cache.length(0) - 1);
        trace.emplace_back(rolled.begin(), rolled.begin() + static_cast<std::ptrdiff_t>(n_vocab));
    }
    return trace;
}

// A ring of window + pass - 1 rows (8 + 3 here: the 21-token prompt and 30 steps wrap it
// several times) computes the bits of a cache that keeps every position, with passes and
// speculative rollbacks of up to `pass` rows, for every KV cache type.
TEST(SlidingWindowRing, SameBitsAsACacheThatKeepsEverything) {
    for (const char* name : {"gemma3-f32", "gemma3-q8_0"}) {
        const Model model = Model::load(test::golden_path(std::string(name) + ".gguf"));
        ASSERT_EQ(model.hparams().swa.window, 8);
        for (const KvType kv : {KvType::F32, KvType::F16, KvType::Q8_0}) {
            const Trace full = run_alone(model, kv, kPrompts[2], 30);
            const Trace ring = run_ring(model, kv, kPrompts[2], 30, 4, 64);
            expect_same_bits(full, ring, fmt::format("{} kv {}", name, static_cast<int>(kv)));
        }
    }
}

// Context memory is paid for the global layers only: 1 of the test model's 7 layers keeps all
// 64 positions, the 6 sliding ones rings of 8 + 4 - 1.
TEST(SlidingWindowRing, KeepsOnlyTheWindowOfTheSlidingLayers) {
    const Model model = Model::load(test::golden_path("gemma3-f32.gguf"));
    const infer::KvCache full = make_kv_cache(model, 2, 64, KvType::F32);
    const infer::KvCache ring = make_kv_cache(model, 2, 64, KvType::F32, 4);
    const std::size_t per_position = 2 * 2 * 32 * sizeof(float);  // 2 slots, keys and values, one head of 32
    EXPECT_EQ(full.bytes(), 7 * 64 * per_position);
    EXPECT_EQ(ring.bytes(), (1 * 64 + 6 * 11) * per_position);
    EXPECT_EQ(ring.rows(5), 64);
    EXPECT_EQ(ring.rows(0), 11);
    EXPECT_EQ(ring.max_rows_per_pass(), 4);
}

// A pass longer than the ring allows, or a rollback past what the ring still holds, is refused
// with the numbers, before anything is written.
TEST(SlidingWindowRing, RefusesPassesAndRollbacksTheRingCannotHold) {
    const Model model = Model::load(test::golden_path("gemma3-f32.gguf"));
    infer::KvCache cache = make_kv_cache(model, 2, 64, KvType::F32, 4);
    Forward forward(model, 8, cache);
    std::vector<BatchRow> five;
    for (int i = 0; i < 5; ++i) five.push_back({1, i, 0, false});
    EXPECT_THAT([&] { forward.run(five, cache, {}); },
                ::testing::ThrowsMessage<Error>(::testing::HasSubstr("5 rows of slot 0 in one pass")));
    EXPECT_EQ(cache.length(0), 0);
    for (int i = 0; i < 20; ++i) {
        const BatchRow one[] = {{1 + i, i, 0, false}};
        forward.run(one, cache, {});
    }
    // The ring (11 rows) holds positions 9..19; going back to 12 needs 5..11 for the next query.
    EXPECT_EQ(cache.min_truncation(0), 16);
    EXPECT_THAT([&] { cache.truncate(0, 15); },
                ::testing::ThrowsMessage<Error>(::testing::HasSubstr("0 or at least 16")));
    EXPECT_THROW(cache.copy_prefix(0, 1, 12), Error);
    cache.copy_prefix(0, 1, 16);
    EXPECT_EQ(cache.length(1), 16);
    cache.truncate(0, 0);
    EXPECT_EQ(cache.length(0), 0);
}

// The scheduler reuses a prefix only where the rings still hold its window; a reused one
// gives the tokens of a fresh run.
TEST(SlidingWindowRing, SchedulerReusesPrefixesTheRingsStillHold) {
    const Model model = Model::load(test::golden_path("gemma3-q8_0.gguf"));
    const Tokenizer tokenizer = Tokenizer::from_gguf(model.file());
    SchedulerOptions options;
    options.n_slots = 1;
    options.n_batch = 4;  // rings of 8 + 4 - 1 rows
    options.n_ctx = 64;
    const auto run = [&](Scheduler& scheduler, const Request& r) {
        const auto handle = scheduler.submit(r);
        scheduler.run_until_idle();
        return handle->wait();
    };
    Scheduler scheduler(model, tokenizer, options);
    const RequestResult a = run(scheduler, request(kPrompts[2], 12));
    ASSERT_TRUE(a.error.empty()) << a.error;
    // The slot holds 32 positions; a prompt sharing its first 10 would go back past its rings.
    std::vector<std::int32_t> second(kPrompts[2].begin(), kPrompts[2].begin() + 10);
    second.push_back(400);
    const RequestResult b = run(scheduler, request(second, 12));
    ASSERT_TRUE(b.error.empty()) << b.error;
    EXPECT_EQ(b.stats.cached_tokens, 0);
    // A prompt that continues the slot's tokens reuses them, and runs as a fresh scheduler does.
    std::vector<std::int32_t> third = second;
    third.insert(third.end(), b.tokens.begin(), b.tokens.end());
    third.push_back(7);
    const RequestResult c = run(scheduler, request(third, 12));
    EXPECT_GT(c.stats.cached_tokens, 15);
    Scheduler fresh(model, tokenizer, options);
    const RequestResult d = run(fresh, request(third, 12));
    EXPECT_EQ(d.stats.cached_tokens, 0);
    EXPECT_EQ(c.tokens, d.tokens);
}

}  // namespace
}  // namespace forge::llm
