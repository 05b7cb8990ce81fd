// The simd rope kernel against the scalar one (simd builds only).
#include "kernels/rope.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::uniform;

TEST(RopeSimd, MatchesScalar) {
    // Rotated widths around the vector widths, head dims with and without a pass-through
    // tail, and n_rot past the simd kernel's 256-dim table block.
    const std::pair<std::size_t, std::size_t> shapes[] = {{2, 2},   {8, 8},   {14, 14},  {16, 16}, {18, 18},
                                                          {34, 34}, {64, 64}, {128, 64}, {96, 40}, {128, 128},
                                                          {80, 62}, {576, 576}, {600, 520}};
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        for (auto [dim, n_rot] : shapes) {
            for (double pos : {0.0, 5.0, 32767.0}) {
                const auto x = uniform(3 * dim, -2, 2, static_cast<std::uint32_t>(dim * 3 + n_rot));
                std::vector<float> cos(n_rot / 2), sin(n_rot / 2), want(x.size()), got(x.size());
                scalar::rope_angles(pos, 10000, 1, cos, sin);
                scalar::rope(x, static_cast<std::int64_t>(dim), mode, {cos, sin}, want);
                simd::rope(x, static_cast<std::int64_t>(dim), mode, {cos, sin}, got);
                for (std::size_t j = 0; j < x.size(); ++j) {
                    ASSERT_TRUE(close(got[j], want[j], 1e-6, 1e-6)) << "dim " << dim << " n_rot " << n_rot << " j " << j;
                }
                // In place gives the same.
                auto in_place = x;
                simd::rope(in_place, static_cast<std::int64_t>(dim), mode, {cos, sin}, in_place);
                ASSERT_EQ(in_place, got);
            }
        }
    }
}

TEST(RopeSimd, AnglesAreTheScalarAngles) {
    std::vector<float> c1(64), s1(64), c2(64), s2(64);
    scalar::rope_angles(123.0, 10000, 0.5f, c1, s1);
    simd::rope_angles(123.0, 10000, 0.5f, c2, s2);
    EXPECT_EQ(c1, c2);
    EXPECT_EQ(s1, s2);
    const std::vector<float> divisors(64, 3.0f);
    RopeFrequencies f;
    f.freq_divisors = divisors;
    f.ext_factor = 1.0f;
    f.corr_low = 4.0f;
    f.corr_high = 20.0f;
    f.mscale = 1.2f;
    scalar::rope_angles(1234.0, f, c1, s1);
    simd::rope_angles(1234.0, f, c2, s2);
    EXPECT_EQ(c1, c2);
    EXPECT_EQ(s1, s2);
}

}  // namespace
}  // namespace forge::kernels
