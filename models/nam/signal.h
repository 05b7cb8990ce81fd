// Multi-channel blocks of audio (or hidden features) as the NAM models pass them around:
// channel c, frame t is data[c * stride + t]. Channel-major rows are what the conv1d kernel
// reads and writes, and a row is one contiguous span for the element-wise kernels.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace forge::nam {

struct ConstSignal {
    const float* data;
    std::int64_t stride;
    const float* row(std::int64_t c) const { return data + c * stride; }
};

struct Signal {
    float* data;
    std::int64_t stride;
    float* row(std::int64_t c) const { return data + c * stride; }
    operator ConstSignal() const { return {data, stride}; }
};

// An owned buffer of `channels` rows of `capacity` frames, sized once at prepare time.
class SignalBuffer {
public:
    void resize(std::int64_t channels, std::int64_t capacity) {
        channels_ = channels;
        capacity_ = capacity;
        data_.assign(static_cast<std::size_t>(channels * capacity), 0.0f);
    }
    Signal signal() { return {data_.data(), capacity_}; }
    ConstSignal signal() const { return {data_.data(), capacity_}; }
    // Rows [first, first + count) as a signal of their own.
    Signal rows(std::int64_t first) { return {data_.data() + first * capacity_, capacity_}; }
    std::int64_t channels() const { return channels_; }
    std::int64_t capacity() const { return capacity_; }
    void clear() { std::fill(data_.begin(), data_.end(), 0.0f); }

private:
    std::vector<float> data_;
    std::int64_t channels_ = 0;
    std::int64_t capacity_ = 0;
};

}  // namespace forge::nam
