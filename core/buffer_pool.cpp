#include "core/buffer_pool.h"

#include <cstdlib>
#include <cstddef>
#include <memory>
#include <new>

namespace forge {

BufferPool::BufferPool(std::size_t max_cached_bytes) : max_cached_bytes_(max_cached_bytes) {}

BufferPool::~BufferPool() { trim(); }

std::size_t BufferPool::rounded(std::size_t bytes) {
    const std::size_t at_least_one = bytes == 0 ? 1 : bytes;
    return (at_least_one + kAlignment - 1) / kAlignment * kAlignment;
}

void* BufferPool::acquire(std::size_t bytes) {
    const std::size_t size = rounded(bytes);
    {
        std::lock_guard lock(mutex_);
        auto it = free_blocks_.find(size);
        if (it != free_blocks_.end() && !it->second.empty()) {
            void* block = it->second.back();
            it->second.pop_back();
            cached_bytes_ -= size;
            ++hits_;
            return block;
        }
        ++misses_;
    }
    void* block = std::aligned_alloc(kAlignment, size);
    if (block == nullptr) throw std::bad_alloc();
    return block;
}

void BufferPool::release(void* block, std::size_t bytes) {
    const std::size_t size = rounded(bytes);
    {
        std::lock_guard lock(mutex_);
        if (cached_bytes_ + size <= max_cached_bytes_) {
            free_blocks_[size].push_back(block);
            cached_bytes_ += size;
            return;
        }
    }
    std::free(block);  // over the cache budget: give it back to the system
}

void BufferPool::trim() {
    std::lock_guard lock(mutex_);
    for (auto& [size, blocks] : free_blocks_) {
        for (void* block : blocks) std::free(block);
    }
    free_blocks_.clear();
    cached_bytes_ = 0;
}

std::size_t BufferPool::cached_bytes() const {
    std::lock_guard lock(mutex_);
    return cached_bytes_;
}

std::size_t BufferPool::hits() const {
    std::lock_guard lock(mutex_);
    return hits_;
}

std::size_t BufferPool::misses() const {
    std::lock_guard lock(mutex_);
    return misses_;
}

BufferPool& BufferPool::global() {
    // Never destroyed: a tensor with static storage duration may release its bytes after
    // this function's statics would have been torn down.
    alignas(BufferPool) static std::byte memory[sizeof(BufferPool)];
    static BufferPool* pool = std::construct_at(reinterpret_cast<BufferPool*>(memory));
    return *pool;
}

}  // namespace forge
