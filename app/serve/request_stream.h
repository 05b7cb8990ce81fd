// The hand-over between the scheduler thread, which produces a request's text pieces and
// log-probabilities, and the HTTP thread that writes them to the client. The scheduler never
// waits on a client: pieces are buffered here, and a slow reader only delays itself. When the
// client goes away, the next piece tells the scheduler to cancel (its sink returns false).
#pragma once

#include "models/llm/generation_state.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace forge::app::serve {

class RequestStream {
public:
    // Scheduler thread.
    bool push_text(std::string_view piece);  // false once the client is gone: cancel
    void push_logprob(const llm::TokenLogprob& logprob);

    // HTTP thread: what arrived since the last take, waiting up to `timeout` for something.
    struct Output {
        std::string text;
        std::vector<llm::TokenLogprob> logprobs;
        bool empty() const { return text.empty() && logprobs.empty(); }
    };
    Output take(std::chrono::milliseconds timeout);
    void client_gone() { gone_.store(true); }

private:
    std::mutex mutex_;
    std::condition_variable arrived_;
    Output pending_;
    std::atomic<bool> gone_{false};
};

}  // namespace forge::app::serve
