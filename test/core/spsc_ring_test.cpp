// SpscRing: order, capacity, wrap-around, and a producer and a consumer thread handing over
// 200 000 values without loss, duplication or reordering.
#include "core/spsc_ring.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace forge {
namespace {

TEST(SpscRing, CapacityIsRoundedUpToAPowerOfTwo) {
    EXPECT_EQ(SpscRing<int>(5).capacity(), 8u);
    EXPECT_EQ(SpscRing<int>(8).capacity(), 8u);
    EXPECT_EQ(SpscRing<int>(0).capacity(), 1u);
}

TEST(SpscRing, PushStopsWhenFullAndPopReturnsTheOldestFirst) {
    SpscRing<int> ring(4);
    const std::vector<int> values{1, 2, 3, 4, 5, 6};
    EXPECT_EQ(ring.push(values), 4u);
    EXPECT_FALSE(ring.push(7));
    std::vector<int> out(3);
    EXPECT_EQ(ring.pop(out), 3u);
    EXPECT_EQ(out, (std::vector<int>{1, 2, 3}));
    // Wraps around the end of the slots.
    EXPECT_EQ(ring.push(std::span<const int>(values).subspan(4)), 2u);
    out.assign(8, 0);
    EXPECT_EQ(ring.pop(out), 3u);
    EXPECT_EQ(std::vector<int>(out.begin(), out.begin() + 3), (std::vector<int>{4, 5, 6}));
    EXPECT_EQ(ring.pop(out), 0u);
}

TEST(SpscRing, TwoThreadsHandOverEveryValueInOrder) {
    constexpr std::uint32_t kCount = 200'000;
    SpscRing<std::uint32_t> ring(64);
    std::thread producer([&] {
        std::uint32_t block[7];
        for (std::uint32_t next = 0; next < kCount;) {
            std::uint32_t n = 0;
            while (n < 7 && next + n < kCount) block[n] = next + n, ++n;
            next += static_cast<std::uint32_t>(ring.push(std::span<const std::uint32_t>(block, n)));
        }
    });
    std::uint32_t expected = 0;
    bool in_order = true;
    std::uint32_t buffer[5];
    while (expected < kCount) {
        const std::size_t n = ring.pop(buffer);
        for (std::size_t i = 0; i < n; ++i) in_order = in_order && buffer[i] == expected++;
    }
    producer.join();
    EXPECT_TRUE(in_order);
    EXPECT_EQ(ring.pop(buffer), 0u);
}

}  // namespace
}  // namespace forge
