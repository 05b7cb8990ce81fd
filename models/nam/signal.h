// Multi-channel blocks of audio (or hidden features) as the NAM models pass them around:
// channel c, frame t is data[c * stride + t]. Channel-major rows are what the conv1d kernel
// reads and writes, and a row is one contiguous span for the element-wise kernels.
#pragma once

#include <algorithm>
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

// The most floats all SignalBuffers together may hold (1 GiB): the state a .nam file asks
// for (channels x look-back, summed over layers) is checked against it before allocating,
// so a small hostile file cannot make forge allocate gigabytes. Real models need well under
// 1 MiB of state.
inline constexpr std::int64_t kMaxStateFloats = std::int64_t{1} << 28;

// An owned buffer of `channels` rows of `capacity` frames, sized once at prepare time.
// Movable, not copyable: every live buffer counts against kMaxStateFloats.
class SignalBuffer {
public:
    SignalBuffer() = default;
    SignalBuffer(SignalBuffer&& other) noexcept { *this = std::move(other); }
    SignalBuffer& operator=(SignalBuffer&& other) noexcept;
    SignalBuffer(const SignalBuffer&) = delete;
    SignalBuffer& operator=(const SignalBuffer&) = delete;
    ~SignalBuffer();

    // Throws forge::Error, before allocating, when the size overflows or would take the
    // buffers' total past kMaxStateFloats.
    void resize(std::int64_t channels, std::int64_t capacity);
    Signal signal() { return {data_.data(), capacity_}; }
    ConstSignal signal() const { return {data_.data(), capacity_}; }
    // Rows [first, first + count) as a signal of their own.
    Signal rows(std::int64_t first) { return {data_.data() + first * capacity_, capacity_}; }
    std::int64_t channels() const { return channels_; }
    std::int64_t capacity() const { return capacity_; }
    void clear() { std::fill(data_.begin(), data_.end(), 0.0f); }

    // Floats held by all live buffers (for the bound above and for tests).
    static std::int64_t total_floats();

private:
    void release() noexcept;

    std::vector<float> data_;
    std::int64_t channels_ = 0;
    std::int64_t capacity_ = 0;
};

}  // namespace forge::nam
