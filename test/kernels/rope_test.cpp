// The scalar rope kernels against a direct double-precision rotation, and hand-worked pairs.
#include "kernels/rope.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::uniform;

// ggml_rope_ext without YaRN: theta_i = pos * freq_scale * base^(-2i / n_rot).
std::vector<double> naive_rope(const std::vector<float>& x, std::size_t dim, std::size_t n_rot, RopeMode mode,
                               double pos, double base, double freq_scale) {
    std::vector<double> y(x.begin(), x.end());
    for (std::size_t head = 0; head < x.size() / dim; ++head) {
        for (std::size_t i = 0; i < n_rot / 2; ++i) {
            const double theta = pos * freq_scale * std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(n_rot));
            const std::size_t p = head * dim + (mode == RopeMode::Normal ? 2 * i : i);
            const std::size_t q = head * dim + (mode == RopeMode::Normal ? 2 * i + 1 : i + n_rot / 2);
            y[p] = x[p] * std::cos(theta) - x[q] * std::sin(theta);
            y[q] = x[p] * std::sin(theta) + x[q] * std::cos(theta);
        }
    }
    return y;
}

std::vector<float> apply(const std::vector<float>& x, std::size_t dim, std::size_t n_rot, RopeMode mode, double pos,
                         float base = 10000, float freq_scale = 1) {
    std::vector<float> cos(n_rot / 2), sin(n_rot / 2), y(x.size());
    scalar::rope_angles(pos, base, freq_scale, cos, sin);
    scalar::rope(x, static_cast<std::int64_t>(dim), mode, {cos, sin}, y);
    return y;
}

TEST(RopeScalar, PairsByMode) {
    // head_dim 4, position 1: theta_0 = 1, theta_1 = 10000^(-1/2) = 0.01.
    const std::vector<float> x = {1, 0, 0, 1};
    const auto normal = apply(x, 4, 4, RopeMode::Normal, 1);  // pairs (0,1), (2,3)
    EXPECT_NEAR(normal[0], std::cos(1.0), 1e-7);
    EXPECT_NEAR(normal[1], std::sin(1.0), 1e-7);
    EXPECT_NEAR(normal[2], -std::sin(0.01), 1e-7);
    EXPECT_NEAR(normal[3], std::cos(0.01), 1e-7);
    const auto neox = apply(x, 4, 4, RopeMode::Neox, 1);  // pairs (0,2), (1,3)
    EXPECT_NEAR(neox[0], std::cos(1.0), 1e-7);
    EXPECT_NEAR(neox[2], std::sin(1.0), 1e-7);
    EXPECT_NEAR(neox[1], -std::sin(0.01), 1e-7);
    EXPECT_NEAR(neox[3], std::cos(0.01), 1e-7);
}

TEST(RopeScalar, MatchesDoublePrecision) {
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        for (auto [dim, n_rot] : {std::pair<std::size_t, std::size_t>{64, 64}, {128, 64}, {80, 32}, {6, 2}}) {
            for (double pos : {0.0, 1.0, 17.0, 4095.0, 100000.0}) {
                const auto x = uniform(3 * dim, -1, 1, static_cast<std::uint32_t>(dim + n_rot));
                const auto y = apply(x, dim, n_rot, mode, pos, 500000.0f, 0.25f);
                const auto want = naive_rope(x, dim, n_rot, mode, pos, 500000.0, 0.25);
                for (std::size_t j = 0; j < x.size(); ++j) {
                    ASSERT_TRUE(close(y[j], want[j], 0, 3e-7)) << "dim " << dim << " pos " << pos << " j " << j;
                }
            }
        }
    }
}

TEST(RopeScalar, PositionZeroAndTailAreIdentity) {
    const auto x = uniform(2 * 10, -1, 1, 4);
    EXPECT_EQ(apply(x, 10, 6, RopeMode::Normal, 0), x);
    const auto y = apply(x, 10, 6, RopeMode::Neox, 3);
    for (std::size_t head = 0; head < 2; ++head) {
        for (std::size_t j = 6; j < 10; ++j) EXPECT_EQ(y[head * 10 + j], x[head * 10 + j]);
    }
}

TEST(RopeScalar, FrequencyDivisorsDivideEachPairsAngle) {
    // Llama 3.1's rope_freqs: pair i turns d_i times slower.
    const std::vector<float> divisors = {1.0f, 2.0f, 8.0f};
    RopeFrequencies f;
    f.theta_base = 100.0f;
    f.freq_divisors = divisors;
    std::vector<float> cos(3), sin(3);
    scalar::rope_angles(7.0, f, cos, sin);
    for (std::size_t i = 0; i < 3; ++i) {
        const double theta = 7.0 * std::pow(100.0, -2.0 * static_cast<double>(i) / 6.0) / divisors[i];
        EXPECT_NEAR(cos[i], std::cos(theta), 1e-7) << i;
        EXPECT_NEAR(sin[i], std::sin(theta), 1e-7) << i;
    }
}

TEST(RopeScalar, YarnRampsFromExtrapolationToInterpolationAndScalesTheMagnitude) {
    // Six pairs, ramp from pair 1 to pair 3: pairs 0 and 1 keep the trained angle, pair 2 is
    // half way, pairs 3.. are interpolated by freq_scale.
    RopeFrequencies f;
    f.theta_base = 10.0f;
    f.freq_scale = 0.25f;
    f.ext_factor = 1.0f;
    f.corr_low = 1.0f;
    f.corr_high = 3.0f;
    f.mscale = 1.5f;
    std::vector<float> cos(6), sin(6);
    const double pos = 3.0;
    scalar::rope_angles(pos, f, cos, sin);
    const double mix[] = {1.0, 1.0, 0.5, 0.0, 0.0, 0.0};
    for (std::size_t i = 0; i < 6; ++i) {
        const double extrapolated = pos * std::pow(10.0, -2.0 * static_cast<double>(i) / 12.0);
        const double theta = extrapolated * (0.25 * (1.0 - mix[i]) + mix[i]);
        EXPECT_NEAR(cos[i], 1.5 * std::cos(theta), 2e-7) << i;
        EXPECT_NEAR(sin[i], 1.5 * std::sin(theta), 2e-7) << i;
    }
    // ext_factor 0 is plain linear interpolation with the magnitude scale.
    f.ext_factor = 0.0f;
    std::vector<float> plain_cos(6), plain_sin(6);
    scalar::rope_angles(pos, 10.0f, 0.25f, plain_cos, plain_sin);
    scalar::rope_angles(pos, f, cos, sin);
    for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(cos[i], 1.5f * plain_cos[i], 2e-7) << i;
}

}  // namespace
}  // namespace forge::kernels
