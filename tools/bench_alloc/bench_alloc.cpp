// Which allocator should back tensor storage? This measures the three candidates on the
// allocation pattern of eager execution: one "step" (a transformer block's forward at
// 128 tokens x 1024 wide) allocates ~24 op outputs of 4 KiB..1.5 MiB, writes each fully (as a
// kernel does), and frees them in a non-LIFO order as their last consumer finishes.
//
//   malloc : std::aligned_alloc / std::free (glibc: large blocks are fresh mmaps, so every
//            step page-faults its memory in again)
//   pool   : forge::BufferPool (freed blocks cached by exact size and handed back)
//   arena  : a bump allocator reset at the end of each step; cannot free early, so its peak
//            is the sum of all of a step's outputs, and it cannot serve tensors that outlive
//            the step (autograd keeps some alive until backward)
//
// Build: part of the meson build (tools/bench_alloc/bench_alloc). Run it: ./bench_alloc
#include "core/buffer_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace {

struct Allocation {
    std::size_t bytes;
    int free_after;  // index of the allocation after which this one is freed
};

// One step's op outputs: sizes in floats of a pre-norm block at T=128, d=1024, ff=3072.
std::vector<Allocation> step_pattern() {
    const std::size_t T = 128, d = 1024, ff = 3072, heads = 16;
    const std::vector<std::size_t> floats = {
        T * d,      T,        T * d,  T * d,      T * d,     T * d,  T * heads * T, T * heads * T,
        T * d,      T * d,    T * d,  T,          T * d,     T * ff, T * ff,        T * ff,
        T * ff,     T * ff,   T * d,  T * d,      T * 16,    T * 16, T * 4,         T * d};
    std::vector<Allocation> pattern;
    for (std::size_t i = 0; i < floats.size(); ++i) {
        // Freed two to five ops later: outputs die out of order, as in a real graph.
        const int lifetime = 2 + static_cast<int>(i * 7 % 4);
        pattern.push_back({floats[i] * sizeof(float),
                           std::min(static_cast<int>(i) + lifetime, static_cast<int>(floats.size()) - 1)});
    }
    return pattern;
}

template <typename Acquire, typename Release, typename EndStep>
double seconds_per_step(const std::vector<Allocation>& pattern, int steps, Acquire acquire, Release release,
                        EndStep end_step) {
    std::vector<void*> live(pattern.size());
    const auto start = std::chrono::steady_clock::now();
    for (int step = 0; step < steps; ++step) {
        for (std::size_t i = 0; i < pattern.size(); ++i) {
            live[i] = acquire(pattern[i].bytes);
            std::memset(live[i], static_cast<int>(i), pattern[i].bytes);  // the kernel writes its output
            for (std::size_t j = 0; j <= i; ++j) {
                if (live[j] != nullptr && pattern[j].free_after == static_cast<int>(i)) {
                    release(live[j], pattern[j].bytes);
                    live[j] = nullptr;
                }
            }
        }
        end_step();
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / steps;
}

class Arena {
public:
    explicit Arena(std::size_t capacity)
        : memory_(static_cast<std::byte*>(std::aligned_alloc(64, capacity))), capacity_(capacity) {}
    ~Arena() { std::free(memory_); }
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    void* acquire(std::size_t bytes) {
        const std::size_t at = used_;
        used_ += (bytes + 63) / 64 * 64;
        if (used_ > capacity_) std::abort();
        peak_ = std::max(peak_, used_);
        return memory_ + at;
    }
    void reset() { used_ = 0; }
    std::size_t peak() const { return peak_; }

private:
    std::byte* memory_;
    std::size_t capacity_;
    std::size_t used_ = 0;
    std::size_t peak_ = 0;
};

}  // namespace

int main() {
    const auto pattern = step_pattern();
    const int steps = 200;

    std::size_t live_bytes = 0, peak_live = 0;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        live_bytes += pattern[i].bytes;
        peak_live = std::max(peak_live, live_bytes);
        for (std::size_t j = 0; j <= i; ++j)
            if (pattern[j].free_after == static_cast<int>(i)) live_bytes -= pattern[j].bytes;
    }

    const double malloc_s = seconds_per_step(
        pattern, steps, [](std::size_t n) { return std::aligned_alloc(64, (n + 63) / 64 * 64); },
        [](void* p, std::size_t) { std::free(p); }, [] {});

    forge::BufferPool pool;
    const double pool_s = seconds_per_step(
        pattern, steps, [&](std::size_t n) { return pool.acquire(n); },
        [&](void* p, std::size_t n) { pool.release(p, n); }, [] {});

    Arena arena(std::size_t{256} << 20);
    const double arena_s = seconds_per_step(
        pattern, steps, [&](std::size_t n) { return arena.acquire(n); }, [](void*, std::size_t) {},
        [&] { arena.reset(); });

    fmt::print("{} allocations per step, {:.1f} MiB allocated per step, {} steps\n", pattern.size(),
               [&] { std::size_t s = 0; for (auto& a : pattern) s += a.bytes; return s / 1048576.0; }(), steps);
    fmt::print("{:<8} {:>12} {:>16}\n", "strategy", "ms/step", "peak MiB");
    fmt::print("{:<8} {:>12.3f} {:>16.1f}\n", "malloc", malloc_s * 1e3, peak_live / 1048576.0);
    fmt::print("{:<8} {:>12.3f} {:>16.1f}\n", "pool", pool_s * 1e3, (peak_live) / 1048576.0);
    fmt::print("{:<8} {:>12.3f} {:>16.1f}\n", "arena", arena_s * 1e3, arena.peak() / 1048576.0);
    fmt::print("pool cache after the run: {:.1f} MiB in free blocks\n", pool.cached_bytes() / 1048576.0);
    return 0;
}
