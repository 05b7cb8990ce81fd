// A cache of freed, 64-byte-aligned heap blocks keyed by their exact size.
//
// Eager execution allocates the same few sizes over and over (every decoded token, every
// training step repeats the previous one's shapes), so a freed block is usually wanted again
// moments later. The pool hands it back without a trip through the allocator and without
// page-faulting fresh memory. docs/ARCHITECTURE.md records the measurement behind choosing
// a pool over an arena.
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace forge {

class BufferPool {
public:
    static constexpr std::size_t kAlignment = 64;

    explicit BufferPool(std::size_t max_cached_bytes = std::size_t{1} << 30);
    ~BufferPool();
    BufferPool(const BufferPool&) = delete;
    BufferPool& operator=(const BufferPool&) = delete;

    // A block of at least `bytes` bytes (rounded up to the alignment), 64-byte aligned.
    void* acquire(std::size_t bytes);
    // Return a block obtained from acquire() with the same `bytes`.
    void release(void* block, std::size_t bytes);
    // Free every cached block.
    void trim();

    std::size_t cached_bytes() const;
    std::size_t hits() const;
    std::size_t misses() const;

    // The pool behind Storage::allocate.
    static BufferPool& global();

private:
    static std::size_t rounded(std::size_t bytes);

    mutable std::mutex mutex_;
    std::unordered_map<std::size_t, std::vector<void*>> free_blocks_;
    std::size_t max_cached_bytes_;
    std::size_t cached_bytes_ = 0;
    std::size_t hits_ = 0;
    std::size_t misses_ = 0;
};

}  // namespace forge
