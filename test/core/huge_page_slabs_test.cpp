#include "core/huge_page_slabs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

namespace forge {
namespace {

constexpr std::size_t kSlab = HugePageSlabs::kHugePage * 2;

std::uintptr_t address(const std::shared_ptr<std::byte>& p) { return reinterpret_cast<std::uintptr_t>(p.get()); }

TEST(HugePageSlabs, BuffersAreAlignedZeroedAndDisjoint) {
    HugePageSlabs slabs(kSlab);
    std::vector<std::pair<std::shared_ptr<std::byte>, std::size_t>> buffers;
    for (std::size_t bytes : {1, 63, 64, 100, 4096, 300000, 5000, 1}) buffers.emplace_back(slabs.allocate(bytes), bytes);
    for (const auto& [p, bytes] : buffers) {
        EXPECT_EQ(address(p) % HugePageSlabs::kAlignment, 0u);
        EXPECT_TRUE(std::all_of(p.get(), p.get() + bytes, [](std::byte b) { return b == std::byte{0}; }));
        std::memset(p.get(), 0xAB, bytes);  // writable to the last byte
    }
    // No buffer overlaps another: sorted by address, each ends before the next begins.
    std::sort(buffers.begin(), buffers.end(), [](const auto& a, const auto& b) { return address(a.first) < address(b.first); });
    for (std::size_t i = 1; i < buffers.size(); ++i) {
        EXPECT_LE(address(buffers[i - 1].first) + buffers[i - 1].second, address(buffers[i].first));
    }
}

TEST(HugePageSlabs, SmallBuffersShareASlabThatStartsOnAHugePage) {
    HugePageSlabs slabs(kSlab);
    const auto first = slabs.allocate(1000), second = slabs.allocate(1000);
    EXPECT_EQ(address(first) % HugePageSlabs::kHugePage, 0u);
    EXPECT_EQ(address(second), address(first) + 1024);  // back to back, in 64-byte steps
    EXPECT_EQ(slabs.mapped_bytes(), kSlab);
}

TEST(HugePageSlabs, ASlabIsUnmappedWithItsLastBuffer) {
    HugePageSlabs slabs(kSlab);
    auto a = slabs.allocate(kSlab / 8), b = slabs.allocate(kSlab / 8);
    auto large = slabs.allocate(kSlab);  // a quarter slab or more: a slab of its own
    EXPECT_EQ(address(large) % HugePageSlabs::kHugePage, 0u);
    EXPECT_EQ(slabs.mapped_bytes(), 2 * kSlab);
    large.reset();
    EXPECT_EQ(slabs.mapped_bytes(), kSlab);
    a.reset();
    EXPECT_EQ(slabs.mapped_bytes(), kSlab);  // b still lives in it
    b.reset();
    EXPECT_EQ(slabs.mapped_bytes(), 0u);
    const auto again = slabs.allocate(64);  // a fresh slab after the last one went
    EXPECT_EQ(slabs.mapped_bytes(), kSlab);
}

TEST(HugePageSlabs, AFullSlabGivesWayToANewOne) {
    HugePageSlabs slabs(kSlab);
    std::vector<std::shared_ptr<std::byte>> buffers;
    const std::size_t piece = kSlab / 4 - 64;  // just under the own-slab size: four fit in one
    for (int i = 0; i < 5; ++i) buffers.push_back(slabs.allocate(piece));
    EXPECT_EQ(slabs.mapped_bytes(), 2 * kSlab);
    EXPECT_EQ(address(buffers[4]) % HugePageSlabs::kHugePage, 0u);  // the fifth opened the second slab
}

TEST(HugePageSlabs, AnImpossibleSizeIsRefusedNotWrapped) {
    HugePageSlabs slabs(kSlab);
    EXPECT_THROW(slabs.allocate(~std::size_t{0}), std::bad_alloc);  // rounded up, it would be 0
    EXPECT_EQ(slabs.mapped_bytes(), 0u);
}

TEST(HugePageSlabs, BuffersOutliveTheirAllocator) {
    std::shared_ptr<std::byte> kept;
    {
        HugePageSlabs slabs(kSlab);
        kept = slabs.allocate(128);
    }
    std::memset(kept.get(), 1, 128);
    EXPECT_EQ(kept.get()[127], std::byte{1});
}

}  // namespace
}  // namespace forge
