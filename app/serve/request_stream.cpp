#include "app/serve/request_stream.h"

namespace forge::app::serve {

bool RequestStream::push_text(std::string_view piece) {
    {
        std::lock_guard lock(mutex_);
        pending_.text += piece;
    }
    arrived_.notify_one();
    return !gone_.load();
}

void RequestStream::push_logprob(const llm::TokenLogprob& logprob) {
    std::lock_guard lock(mutex_);
    pending_.logprobs.push_back(logprob);
}

RequestStream::Output RequestStream::take(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    arrived_.wait_for(lock, timeout, [&] { return !pending_.empty(); });
    Output out = std::move(pending_);
    pending_ = Output{};
    return out;
}

}  // namespace forge::app::serve
