// A lock-free ring of values from one producer thread to one consumer thread: how an audio
// callback hands meters and recorded samples to the main thread without a lock, an
// allocation or a system call (the constructor allocates; push and pop never do).
//
// The two positions only grow (their difference is the fill; a power-of-two capacity makes
// the wrap-around of size_t harmless). The producer owns write_, the consumer read_; each
// publishes its own with a release store and reads the other's with an acquire load, so the
// slots it copies are complete when the other side sees the new position.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace forge {

template <typename T>
class SpscRing {
    static_assert(std::is_trivially_copyable_v<T>, "the ring copies values with no constructor to run");
    static_assert(std::atomic<std::size_t>::is_always_lock_free, "the positions must be lock-free");

public:
    // Room for at least `capacity` values (rounded up to a power of two).
    explicit SpscRing(std::size_t capacity) : slots_(std::bit_ceil(std::max<std::size_t>(capacity, 1))) {}

    std::size_t capacity() const { return slots_.size(); }

    // Producer: appends as many of `values` as fit; returns how many.
    std::size_t push(std::span<const T> values) noexcept {
        const std::size_t write = write_.load(std::memory_order_relaxed);
        const std::size_t read = read_.load(std::memory_order_acquire);
        const std::size_t n = std::min(values.size(), capacity() - (write - read));
        for (std::size_t i = 0; i < n; ++i) slots_[(write + i) & (capacity() - 1)] = values[i];
        write_.store(write + n, std::memory_order_release);
        return n;
    }

    bool push(const T& value) noexcept { return push(std::span<const T>(&value, 1)) == 1; }

    // Consumer: moves up to into.size() of the oldest values into `into`; returns how many.
    std::size_t pop(std::span<T> into) noexcept {
        const std::size_t read = read_.load(std::memory_order_relaxed);
        const std::size_t write = write_.load(std::memory_order_acquire);
        const std::size_t n = std::min(into.size(), write - read);
        for (std::size_t i = 0; i < n; ++i) into[i] = slots_[(read + i) & (capacity() - 1)];
        read_.store(read + n, std::memory_order_release);
        return n;
    }

private:
    std::vector<T> slots_;
    // On their own cache lines: the two threads write one each.
    alignas(64) std::atomic<std::size_t> write_{0};
    alignas(64) std::atomic<std::size_t> read_{0};
};

}  // namespace forge
