#include "core/buffer_pool.h"
#include "core/storage.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace forge {
namespace {

TEST(BufferPool, BlocksAreAlignedAndReusedBySize) {
    BufferPool pool;
    void* a = pool.acquire(1000);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0u);
    pool.release(a, 1000);
    EXPECT_EQ(pool.cached_bytes(), 1024u);  // rounded up to the 64-byte alignment
    void* b = pool.acquire(1000);
    EXPECT_EQ(b, a) << "a freed block of the same size is handed out again";
    EXPECT_EQ(pool.hits(), 1u);
    void* c = pool.acquire(5000);
    EXPECT_NE(c, a);
    pool.release(b, 1000);
    pool.release(c, 5000);
    pool.trim();
    EXPECT_EQ(pool.cached_bytes(), 0u);
}

TEST(BufferPool, LargeBlocksSitOnWholeHugePages) {
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    BufferPool pool;
    void* a = pool.acquire(5 * kMiB);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % (2 * kMiB), 0u) << "aligned to a 2 MiB transparent huge page";
    pool.release(a, 5 * kMiB);
    EXPECT_EQ(pool.cached_bytes(), 6 * kMiB) << "padded to whole 2 MiB pages";
    void* b = pool.acquire(4 * kMiB + 1);  // also three huge pages: the same cached block
    EXPECT_EQ(b, a);
    pool.release(b, 4 * kMiB + 1);
    void* small = pool.acquire(4 * kMiB - 64);  // under the threshold: 64-byte rounding only
    pool.release(small, 4 * kMiB - 64);
    EXPECT_EQ(pool.cached_bytes(), 10 * kMiB - 64);
}

TEST(BufferPool, GivesBlocksBackBeyondItsBudget) {
    BufferPool pool(/*max_cached_bytes=*/4096);
    void* a = pool.acquire(4096);
    void* b = pool.acquire(4096);
    pool.release(a, 4096);
    pool.release(b, 4096);  // over budget: freed, not cached
    EXPECT_EQ(pool.cached_bytes(), 4096u);
}

TEST(Storage, OwnedStorageIsAlignedAndSized) {
    auto storage = Storage::allocate(100);
    EXPECT_TRUE(storage->owned());
    EXPECT_EQ(storage->size(), 100u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(storage->data()) % 64, 0u);
}

TEST(Storage, BorrowedStorageRunsItsReleaseHookOnce) {
    std::byte bytes[16];
    int released = 0;
    {
        auto storage = Storage::borrow(bytes, sizeof bytes, [&] { ++released; });
        auto shared = storage;  // a second owner: nothing released yet
        storage.reset();
        EXPECT_EQ(released, 0);
        EXPECT_EQ(shared->data(), bytes);
        EXPECT_FALSE(shared->owned());
    }
    EXPECT_EQ(released, 1);
}

}  // namespace
}  // namespace forge
