// The server's counters, rendered as Prometheus text for GET /metrics: tokens and seconds of
// prompt reading and generation, requests by outcome, and the scheduler's load at the moment
// of the scrape (requests running and queued, slots busy of all, and the same per loaded model,
// labelled {model="ID"}, so a many-model server shows which model is busy).
#pragma once

#include "models/llm/generation_state.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace forge::app::serve {

// One scheduler's state when /metrics is read.
struct SchedulerLoad {
    std::int64_t running = 0;  // requests holding a slot (= slots busy)
    std::int64_t queued = 0;   // requests waiting for a slot
    std::int64_t slots = 0;    // all slots
};

// A loaded model's load; an embedding-only model has no slots (its requests run on their
// HTTP thread).
struct ModelLoad {
    std::string model;  // its id in the API
    SchedulerLoad load;
};

// The server's: the sum over the loaded models, and each of them.
struct Load : SchedulerLoad {
    std::vector<ModelLoad> models;
};

class Metrics {
public:
    void record_finished(const llm::GenerationStats& stats);  // a request that ran (or was cancelled)
    void record_rejected() { ++rejected_; }                  // a request answered with a 4xx/5xx before it ran

    std::string prometheus(const Load& load) const;

private:
    // Sums as integers (tokens, microseconds): atomic adds, no lost updates.
    std::atomic<std::int64_t> prompt_tokens_{0}, prompt_us_{0};
    std::atomic<std::int64_t> generated_tokens_{0}, generate_us_{0};
    std::atomic<std::int64_t> finished_{0}, cancelled_{0}, rejected_{0};
    std::atomic<std::int64_t> drafted_tokens_{0}, accepted_tokens_{0};  // speculative decoding
};

}  // namespace forge::app::serve
