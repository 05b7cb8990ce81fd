#include "models/nam/live/rate_bridge.h"

namespace forge::nam {
namespace {

// The head start: a block's worth of jitter room plus the frames a sinc filter holds back
// before its first output.
int head_start(int max_device_block) { return max_device_block + 64; }

}  // namespace

RateBridge::RateBridge(double device_rate, double model_rate, int max_device_block)
    : to_model_(device_rate, model_rate),
      to_device_(model_rate, device_rate),
      model_in_(to_model_.max_output(static_cast<std::size_t>(max_device_block))),
      model_out_(model_in_.size()),
      back_(to_device_.max_output(model_in_.size())),
      queue_(static_cast<std::size_t>(head_start(max_device_block)) + 4 * back_.size()),
      queued_(static_cast<std::size_t>(head_start(max_device_block))),
      latency_(head_start(max_device_block)) {}

void RateBridge::enqueue(std::span<const float> frames) noexcept {
    // A queue that would overflow (it cannot in steady state: in and out rates match) drops
    // its oldest frames rather than block or grow.
    if (queued_ + frames.size() > queue_.size()) {
        const std::size_t drop = queued_ + frames.size() - queue_.size();
        std::copy(queue_.begin() + static_cast<std::ptrdiff_t>(drop), queue_.begin() + static_cast<std::ptrdiff_t>(queued_),
                  queue_.begin());
        queued_ -= drop;
    }
    std::copy(frames.begin(), frames.end(), queue_.begin() + static_cast<std::ptrdiff_t>(queued_));
    queued_ += frames.size();
}

void RateBridge::dequeue(std::span<float> out) noexcept {
    const std::size_t n = std::min(out.size(), queued_);
    std::copy(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n), out.begin());
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(n), out.end(), 0.0f);
    underflow_ += static_cast<long>(out.size() - n);
    std::copy(queue_.begin() + static_cast<std::ptrdiff_t>(n), queue_.begin() + static_cast<std::ptrdiff_t>(queued_),
              queue_.begin());
    queued_ -= n;
}

}  // namespace forge::nam
