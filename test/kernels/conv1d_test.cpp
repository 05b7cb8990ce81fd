// conv1d kernels: scalar against double-precision math; simd against scalar (simd builds),
// over channel counts around the 8-channel block, times around the vector block, dilations
// past the time range, groups and depthwise, causal and valid, and split calls.
#include "kernels/backend.h"
#include "kernels/conv1d.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace forge::kernels {
namespace {

struct Case {
    std::int64_t in_channels, out_channels, groups, kernel_size, dilation, length;
    bool causal;
    bool bias;
};

std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (auto& v : values) v = uniform(rng);
    return values;
}

struct Problem {
    Case shape;
    std::vector<float> input, weight, bias;
    std::int64_t out_length;

    Problem(const Case& c, std::uint32_t seed)
        : shape(c),
          input(random_values(static_cast<std::size_t>(c.in_channels * c.length), seed)),
          weight(random_values(static_cast<std::size_t>(c.out_channels * c.in_channels / c.groups * c.kernel_size), seed + 1)),
          bias(random_values(static_cast<std::size_t>(c.out_channels), seed + 2)),
          out_length(c.causal ? c.length : c.length - (c.kernel_size - 1) * c.dilation) {}

    Conv1d args(std::vector<float>& out, std::int64_t channel_begin, std::int64_t channel_end, std::int64_t t_begin,
                std::int64_t t_end) const {
        return {input.data(), shape.length, shape.in_channels, shape.length, weight.data(),
                shape.bias ? bias.data() : nullptr, out.data(), out_length, shape.out_channels, out_length,
                shape.kernel_size, shape.dilation, shape.groups, shape.causal ? (shape.kernel_size - 1) * shape.dilation : 0,
                channel_begin, channel_end, t_begin, t_end};
    }

    std::vector<double> reference() const {
        const auto& c = shape;
        const std::int64_t in_per_group = c.in_channels / c.groups, out_per_group = c.out_channels / c.groups;
        const std::int64_t pad = c.causal ? (c.kernel_size - 1) * c.dilation : 0;
        std::vector<double> out(static_cast<std::size_t>(c.out_channels * out_length));
        for (std::int64_t o = 0; o < c.out_channels; ++o) {
            for (std::int64_t t = 0; t < out_length; ++t) {
                double sum = c.bias ? bias[static_cast<std::size_t>(o)] : 0.0;
                for (std::int64_t i = 0; i < in_per_group; ++i) {
                    const std::int64_t channel = o / out_per_group * in_per_group + i;
                    for (std::int64_t k = 0; k < c.kernel_size; ++k) {
                        const std::int64_t s = t + k * c.dilation - pad;
                        if (s < 0 || s >= c.length) continue;
                        sum += static_cast<double>(weight[static_cast<std::size_t>((o * in_per_group + i) * c.kernel_size + k)]) *
                               input[static_cast<std::size_t>(channel * c.length + s)];
                    }
                }
                out[static_cast<std::size_t>(o * out_length + t)] = sum;
            }
        }
        return out;
    }
};

const std::vector<Case> kCases = {
    {1, 1, 1, 1, 1, 1, true, false},     {3, 5, 1, 3, 1, 17, true, true},     {8, 8, 1, 3, 1, 100, true, true},
    {16, 16, 1, 3, 512, 1500, true, true}, {16, 8, 1, 6, 64, 700, true, false}, {12, 13, 1, 6, 2, 95, false, true},
    {16, 16, 16, 3, 8, 257, true, true},  {8, 16, 4, 5, 3, 63, false, true},   {9, 9, 3, 2, 700, 500, true, true},
    {4, 20, 2, 3, 1, 31, true, true},     {2, 2, 1, 4, 10, 31, false, false},
};

void expect_close(const std::vector<float>& got, const std::vector<double>& want, double tolerance) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tolerance) << "at " << i;
}

template <typename Kernel>
std::vector<float> run_whole(const Problem& p, Kernel kernel) {
    std::vector<float> out(static_cast<std::size_t>(p.shape.out_channels * p.out_length), -9.0f);
    kernel(p.args(out, 0, p.shape.out_channels, 0, p.out_length));
    return out;
}

TEST(Conv1dKernel, ScalarMatchesDoubleAndSimdMatchesScalar) {
    std::uint32_t seed = 10;
    for (const Case& c : kCases) {
        SCOPED_TRACE(testing::Message() << "cin=" << c.in_channels << " cout=" << c.out_channels << " g=" << c.groups
                                        << " k=" << c.kernel_size << " d=" << c.dilation << " t=" << c.length);
        const Problem p(c, seed += 3);
        const double tolerance = 1e-5 * static_cast<double>(c.in_channels * c.kernel_size + 1);
        const auto scalar_out = run_whole(p, [](const Conv1d& conv) { scalar::conv1d(conv); });
        expect_close(scalar_out, p.reference(), tolerance);
#if defined(FORGE_BACKEND_SIMD)
        const auto simd_out = run_whole(p, [](const Conv1d& conv) { simd::conv1d(conv); });
        expect_close(simd_out, std::vector<double>(scalar_out.begin(), scalar_out.end()), tolerance);
#endif
    }
}

// The front-end splits channels and time across calls; the pieces must equal one whole call.
TEST(Conv1dKernel, SplitCallsEqualOneCallBitForBit) {
    const Problem p({16, 16, 1, 3, 4, 203, true, true}, 77);
    auto split_run = [&](auto kernel) {
        std::vector<float> out(static_cast<std::size_t>(16 * p.out_length), -9.0f);
        for (std::int64_t c0 : {0, 5, 11}) {
            const std::int64_t c1 = c0 == 0 ? 5 : c0 == 5 ? 11 : 16;
            for (std::int64_t t0 : {0, 37, 150}) {
                const std::int64_t t1 = t0 == 0 ? 37 : t0 == 37 ? 150 : p.out_length;
                kernel(p.args(out, c0, c1, t0, t1));
            }
        }
        return out;
    };
    auto scalar_kernel = [](const Conv1d& conv) { scalar::conv1d(conv); };
    EXPECT_EQ(split_run(scalar_kernel), run_whole(p, scalar_kernel));
#if defined(FORGE_BACKEND_SIMD)
    auto simd_kernel = [](const Conv1d& conv) { simd::conv1d(conv); };
    EXPECT_EQ(split_run(simd_kernel), run_whole(p, simd_kernel));
#endif
}

}  // namespace
}  // namespace forge::kernels
