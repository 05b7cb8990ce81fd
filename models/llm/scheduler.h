// Continuous batching: many requests share one model, one KV cache of n_slots slots and one
// forward pass per step.
//
// Each step() is one forward pass over a batch that holds one decode row for every slot that
// is generating, then chunks of prompts still being read (chunked prefill), within a budget of
// n_batch rows. New requests join between steps; a finished or cancelled request frees its slot
// at the step that notices it. A request takes the idle slot whose cached tokens share the
// longest prefix with its prompt (a busy slot's longer prefix is copied over), else the least
// recently used one, and reports how many prompt tokens it found cached. A prompt that does not
// fit in a slot fails alone; a submit beyond max_queue waiting requests is refused at once.
//
// Same bits: a request's logits, and so its tokens, are identical whether it runs alone or
// batched with others (every row of the forward pass depends only on its own sequence), at any
// thread count. Sampling is per request (its own seed).
//
// Speculative decoding (options.speculation, models/llm/speculator.h): each generating slot
// drafts on its own, its decode rows are the pending token and its draft, and after the pass
// its cache is rolled back past the first rejected guess: the same tokens, fewer steps.
//
// Threads: one thread owns every forward pass — the scheduler's own, after start(), or the
// caller of step() when it is not started (tests, benchmarks). Other threads only submit,
// cancel and wait. Text pieces are handed to the request's sink on the scheduler thread.
#pragma once

#include "core/error.h"
#include "core/infer/batch.h"
#include "core/infer/kv_cache.h"
#include "models/llm/forward.h"
#include "models/llm/generation_state.h"
#include "models/llm/sequence_generator.h"
#include "models/llm/model.h"
#include "models/llm/speculator.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace forge::llm {

struct SchedulerOptions {
    std::int64_t n_slots = 4;      // sequences at once
    std::int64_t n_ctx = 4096;     // positions per slot
    std::int64_t n_batch = 512;    // rows per forward pass (decode rows + prompt chunks)
    std::int64_t max_queue = 64;   // requests waiting for a slot
    infer::KvType kv_type = infer::KvType::F16;
    SpeculationOptions speculation;  // off by default
};

struct Request {
    std::vector<std::int32_t> prompt;  // tokens (PromptFormat makes them)
    GenerationOptions generation;
    TextSink sink;                     // optional; called on the scheduler thread; false cancels
    // One scale per LoRA adapter of the model (llama-server's per-request "lora"); empty: the
    // adapters' default scales. A slot's cached prefix is reused only under the same scales.
    std::vector<float> lora_scales;
};

struct RequestResult {
    GenerationStats stats;
    std::vector<std::int32_t> tokens;  // generated
    std::string text;                  // everything streamed
    std::string error;                 // set when the request failed (then nothing was generated)
    std::int64_t slot = -1;            // where it ran
};

// The scheduler's side of one submitted request, shared with the submitter.
class RequestHandle {
public:
    explicit RequestHandle(Request request) : request_(std::move(request)) {}
    void cancel() { cancelled_.store(true); }
    bool cancelled() const { return cancelled_.load(); }
    bool done() const;
    RequestResult wait() const;  // blocks until the request is finished, failed or cancelled
    bool wait_for(std::chrono::milliseconds timeout) const;  // done() within `timeout`

private:
    friend class Scheduler;
    void complete(RequestResult result);

    Request request_;
    std::atomic<bool> cancelled_{false};
    mutable std::mutex mutex_;
    mutable std::condition_variable finished_;
    bool done_ = false;
    RequestResult result_;
};

// One slot as the scheduler last left it (after its latest step): for a server's GET /slots.
struct SlotState {
    bool processing = false;      // a request holds the slot
    std::int64_t n_prompt = 0;    // that request's prompt tokens
    std::int64_t n_decoded = 0;   // tokens it has generated so far
    std::int64_t n_remain = -1;   // tokens it may still generate (-1: until the end or the context is full)
    std::int64_t n_cached = 0;    // tokens the slot's KV cache holds
};

// A submit refused because max_queue requests are already waiting.
class QueueFull : public Error {
public:
    using Error::Error;
};

class Scheduler {
public:
    Scheduler(const Model& model, const Tokenizer& tokenizer, const SchedulerOptions& options);
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    // Queue a request; throws QueueFull when max_queue requests are waiting.
    std::shared_ptr<RequestHandle> submit(Request request);

    // Run steps on the scheduler's own thread until stop() (or destruction); stop() ends every
    // running and waiting request as cancelled at the next step.
    void start();
    void stop();

    // One step on the calling thread (only when not started): admit waiting requests, run one
    // forward pass, hand out its tokens. False when there was nothing to do.
    bool step();
    void run_until_idle() {
        while (step()) {
        }
    }

    const SchedulerOptions& options() const { return options_; }
    // Requests holding a slot and requests waiting for one, readable from any thread (metrics).
    std::int64_t running() const { return running_.load(); }
    std::int64_t queued() const;
    // The tokens a slot's KV cache holds (for tests and reports).
    const std::vector<std::int32_t>& slot_tokens(std::int64_t slot) const { return slots_.at(static_cast<std::size_t>(slot)).tokens; }
    std::int64_t steps() const { return steps_; }
    // Speculative decoding over every finished request: guessed tokens scored, and kept.
    std::int64_t drafted_tokens() const { return drafted_.load(); }
    std::int64_t accepted_tokens() const { return accepted_.load(); }
    // Every slot as of the latest step, readable from any thread.
    std::vector<SlotState> slot_states() const;

private:
    using Clock = std::chrono::steady_clock;
    struct Slot {
        std::vector<std::int32_t> tokens;              // what the cache holds (plus this step's rows)
        std::shared_ptr<RequestHandle> request;        // null when idle
        std::int64_t last_used = 0;
        std::size_t prompt_done = 0;                   // prompt tokens in the cache
        std::optional<std::int32_t> pending;           // the next token to evaluate
        std::unique_ptr<Speculator> speculator;        // drafts for the pending token
        std::int64_t drafted = 0;                      // draft rows in this step's batch
        TextSink emit;                                 // a text piece -> the result and the request's sink
        std::unique_ptr<Sampler> sampler;
        std::unique_ptr<GenerationState> generation;
        RequestResult result;
        std::string piece;
        Clock::time_point started, prompt_read;
    };

    void admit_waiting();
    void admit(std::shared_ptr<RequestHandle> request);
    std::int64_t choose_slot(const std::vector<std::int32_t>& prompt, std::span<const float> lora_scales,
                             std::int64_t& cached, std::int64_t& source) const;
    std::int64_t reusable(std::size_t s, std::int64_t shared) const;
    void fill_batch();
    void hand_out(std::span<const float> logits);
    void advance(std::int64_t slot, std::span<const float> logits);
    void add_decode_rows(std::int64_t slot);
    void release(std::int64_t slot, std::optional<FinishReason> reason);
    void loop();
    void publish_slot_states();

    const Model& model_;
    const Tokenizer& tokenizer_;
    SchedulerOptions options_;
    infer::KvCache cache_;
    Forward forward_;
    infer::Batch batch_;
    std::vector<float> logits_;                        // [n_slots * rows per slot, n_vocab]
    std::vector<Slot> slots_;
    std::int64_t steps_ = 0;
    std::atomic<std::int64_t> running_{0};
    std::atomic<std::int64_t> drafted_{0}, accepted_{0};
    mutable std::mutex states_mutex_;
    std::vector<SlotState> states_;  // what slot_states() reads: copied from slots_ after each step

    mutable std::mutex queue_mutex_;
    std::condition_variable queue_changed_;
    std::deque<std::shared_ptr<RequestHandle>> queue_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace forge::llm
