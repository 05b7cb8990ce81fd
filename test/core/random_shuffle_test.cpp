// random::shuffle: a permutation that depends on the key alone. The pinned order guards the
// data order of runs resumed with a newer forge (ASR batches, NAM training windows): it is
// integer arithmetic only, so it holds for every compiler and standard library.
#include "core/random/shuffle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace forge::random {
namespace {

std::vector<int> shuffled(int n, std::uint64_t key) {
    std::vector<int> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    shuffle(std::span(v), key);
    return v;
}

TEST(RandomShuffle, IsAPermutationFixedByTheKey) {
    const std::vector<int> a = shuffled(1000, stream_key(7, 1));
    std::vector<int> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> identity(1000);
    std::iota(identity.begin(), identity.end(), 0);
    EXPECT_EQ(sorted, identity);
    EXPECT_NE(a, identity);
    EXPECT_EQ(a, shuffled(1000, stream_key(7, 1)));
    EXPECT_NE(a, shuffled(1000, stream_key(7, 2)));
    EXPECT_TRUE(shuffled(0, 1).empty());
    EXPECT_EQ(shuffled(1, 1), std::vector<int>{0});
}

TEST(RandomShuffle, OrderIsPinned) {
    EXPECT_EQ(shuffled(10, stream_key(1, 2, 3)), (std::vector<int>{8, 6, 4, 1, 3, 5, 7, 9, 2, 0}));
}

}  // namespace
}  // namespace forge::random
