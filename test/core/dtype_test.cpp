#include "core/dtype.h"

#include <gtest/gtest.h>

#include <set>

namespace forge {
namespace {

TEST(DType, NamesRoundTripCaseInsensitively) {
    for (int i = 0; i < kDTypeCount; ++i) {
        const auto t = static_cast<DType>(i);
        EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
    }
    EXPECT_EQ(dtype_from_name("Q4_K"), DType::Q4_K);
    EXPECT_EQ(dtype_from_name("F16"), DType::F16);
    EXPECT_EQ(dtype_from_name("q4_2"), std::nullopt);
}

TEST(DType, GgmlIdsAreUniqueAndRoundTrip) {
    std::set<int> seen;
    for (int i = 0; i < kDTypeCount; ++i) {
        const auto t = static_cast<DType>(i);
        const int id = dtype_traits(t).ggml_type;
        if (id < 0) continue;
        EXPECT_TRUE(seen.insert(id).second) << "duplicate ggml id " << id;
        EXPECT_EQ(dtype_from_ggml_type(id), t);
    }
    EXPECT_EQ(dtype_from_ggml_type(4), std::nullopt);  // Q4_2: removed from ggml long ago
}

TEST(DType, BlockLayoutsMatchGgml) {
    // Spot checks against ggml-common.h's block structs.
    EXPECT_EQ(dtype_bytes(DType::F32, 10), 40u);
    EXPECT_EQ(dtype_bytes(DType::Q8_0, 64), 68u);   // 2 blocks of (f16 scale + 32 int8)
    EXPECT_EQ(dtype_bytes(DType::Q4_0, 32), 18u);   // f16 scale + 16 bytes of nibbles
    EXPECT_EQ(dtype_bytes(DType::Q4_K, 256), 144u); // 2 f16 + 12 scale bytes + 128 nibble bytes
    EXPECT_EQ(dtype_bytes(DType::Q6_K, 512), 420u);
    EXPECT_TRUE(is_quantized(DType::Q2_K));
    EXPECT_FALSE(is_quantized(DType::BF16));
}

}  // namespace
}  // namespace forge
