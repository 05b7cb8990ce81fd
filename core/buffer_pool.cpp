#include "core/buffer_pool.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstddef>
#include <memory>
#include <new>

namespace forge {
namespace {

// Blocks of kHugeBlockBytes or more are aligned and padded to whole 2 MiB pages and marked for
// transparent huge pages (madvise: for kernels whose THP mode is "madvise", Debian's default).
// A layer's activations or a vocabulary's logits are otherwise faulted in 4 KiB at a time
// whenever the block is fresh (after a trim(), or past the cache budget): a LoRA step on a
// 0.6B model spent about a fifth of its CPU time in the kernel doing that (docs/ARCHITECTURE.md,
// "Why a buffer pool and not an arena").
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
constexpr std::size_t kHugeBlockBytes = std::size_t{4} << 20;

std::size_t alignment_for(std::size_t bytes) {
    return bytes >= kHugeBlockBytes ? kHugePageBytes : BufferPool::kAlignment;
}

}  // namespace

BufferPool::BufferPool(std::size_t max_cached_bytes) : max_cached_bytes_(max_cached_bytes) {}

BufferPool::~BufferPool() { trim(); }

std::size_t BufferPool::rounded(std::size_t bytes) {
    const std::size_t at_least_one = bytes == 0 ? 1 : bytes;
    const std::size_t alignment = alignment_for(at_least_one);
    return (at_least_one + alignment - 1) / alignment * alignment;
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
    void* block = std::aligned_alloc(alignment_for(size), size);
    if (block == nullptr) throw std::bad_alloc();
    // Advice only: where the kernel has transparent huge pages off, the block keeps 4 KiB pages.
    if (size >= kHugeBlockBytes) madvise(block, size, MADV_HUGEPAGE);
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
