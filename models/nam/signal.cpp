#include "models/nam/signal.h"

#include "core/checked_math.h"
#include "core/error.h"

#include <atomic>
#include <utility>

namespace forge::nam {
namespace {

std::atomic<std::int64_t> live_floats{0};

}  // namespace

SignalBuffer& SignalBuffer::operator=(SignalBuffer&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::move(other.data_);
        channels_ = std::exchange(other.channels_, 0);
        capacity_ = std::exchange(other.capacity_, 0);
        other.data_.clear();
    }
    return *this;
}

SignalBuffer::~SignalBuffer() { release(); }

void SignalBuffer::release() noexcept {
    live_floats -= static_cast<std::int64_t>(data_.size());
    data_ = {};
    channels_ = capacity_ = 0;
}

void SignalBuffer::resize(std::int64_t channels, std::int64_t capacity) {
    const auto floats = checked_mul(channels, capacity);
    const std::int64_t others = live_floats.load() - static_cast<std::int64_t>(data_.size());
    if (channels < 0 || capacity < 0 || !floats || *floats > kMaxStateFloats - others)
        throw Error(fmt::format("the model needs more than {} MiB of buffers ({} channels x {} frames here): its "
                                "channel counts, kernel sizes or dilations are too large",
                                kMaxStateFloats * 4 >> 20, channels, capacity));
    release();
    data_.assign(static_cast<std::size_t>(*floats), 0.0f);
    live_floats += *floats;
    channels_ = channels;
    capacity_ = capacity;
}

std::int64_t SignalBuffer::total_floats() { return live_floats.load(); }

}  // namespace forge::nam
