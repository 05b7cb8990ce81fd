// conv2d kernels: scalar against double-precision math; simd against scalar (simd builds),
// over the shapes of FastConformer's dw_striding subsampling (3x3, stride 2, padding 1, full
// and depthwise), widths around the vector width, stride 1 and a 1x1 pointwise kernel.
#include "kernels/backend.h"
#include "kernels/conv2d.h"
#include "test/kernels/test_data.h"

#include <gtest/gtest.h>

#include <vector>

namespace forge::kernels {
namespace {

struct Case {
    std::int64_t in_channels, out_channels, groups, kernel, stride, pad, height, width;
};

constexpr Case kCases[] = {
    {1, 8, 1, 3, 2, 1, 31, 80},   // the first subsampling conv: one input plane, mel bins wide
    {8, 8, 8, 3, 2, 1, 16, 40},   // depthwise 3x3 / 2
    {4, 6, 2, 3, 1, 1, 9, 17},    // grouped, unit stride, ragged width
    {5, 7, 1, 1, 1, 0, 6, 33},    // pointwise 1x1
    {3, 2, 1, 3, 2, 0, 7, 7},     // no padding
    {2, 2, 2, 5, 3, 2, 11, 1},    // one column
};

struct Problem {
    Case c;
    std::vector<float> input, weight, bias;
    std::int64_t out_h, out_w;

    Problem(const Case& shape, std::uint32_t seed)
        : c(shape),
          input(testing::uniform(static_cast<std::size_t>(c.in_channels * c.height * c.width), -1.0f, 1.0f, seed)),
          weight(testing::uniform(static_cast<std::size_t>(c.out_channels * c.in_channels / c.groups * c.kernel * c.kernel),
                                 -1.0f, 1.0f, seed + 1)),
          bias(testing::uniform(static_cast<std::size_t>(c.out_channels), -1.0f, 1.0f, seed + 2)),
          out_h((c.height + 2 * c.pad - c.kernel) / c.stride + 1),
          out_w((c.width + 2 * c.pad - c.kernel) / c.stride + 1) {}

    template <typename Kernel>
    std::vector<float> run(Kernel kernel, std::int64_t channel_begin, std::int64_t channel_end,
                           std::vector<float> out = {}) const {
        if (out.empty()) out.assign(static_cast<std::size_t>(c.out_channels * out_h * out_w), -7.0f);
        kernel(Conv2d{input.data(), c.in_channels, c.height, c.width, weight.data(), bias.data(), out.data(),
                      c.out_channels, out_h, out_w, c.kernel, c.kernel, c.stride, c.stride, c.pad, c.pad, c.groups,
                      channel_begin, channel_end});
        return out;
    }

    double reference(std::int64_t o, std::int64_t y, std::int64_t x) const {
        const std::int64_t in_per = c.in_channels / c.groups, out_per = c.out_channels / c.groups;
        double sum = bias[static_cast<std::size_t>(o)];
        for (std::int64_t i = 0; i < in_per; ++i)
            for (std::int64_t ky = 0; ky < c.kernel; ++ky)
                for (std::int64_t kx = 0; kx < c.kernel; ++kx) {
                    const std::int64_t row = y * c.stride + ky - c.pad, col = x * c.stride + kx - c.pad;
                    if (row < 0 || row >= c.height || col < 0 || col >= c.width) continue;
                    const std::int64_t channel = o / out_per * in_per + i;
                    sum += static_cast<double>(weight[static_cast<std::size_t>(((o * in_per + i) * c.kernel + ky) * c.kernel + kx)]) *
                           input[static_cast<std::size_t>((channel * c.height + row) * c.width + col)];
                }
        return sum;
    }
};

TEST(Conv2dKernel, ScalarMatchesDoubleAndSimdMatchesScalar) {
    std::uint32_t seed = 40;
    for (const Case& c : kCases) {
        SCOPED_TRACE(::testing::Message() << "cin=" << c.in_channels << " cout=" << c.out_channels << " g=" << c.groups
                                        << " k=" << c.kernel << " s=" << c.stride << " h=" << c.height << " w=" << c.width);
        const Problem p(c, seed += 3);
        const double tolerance = 1e-6 * static_cast<double>(c.in_channels / c.groups * c.kernel * c.kernel + 1);
        const auto scalar_out = p.run([](const Conv2d& conv) { scalar::conv2d(conv); }, 0, c.out_channels);
        for (std::int64_t o = 0; o < c.out_channels; ++o)
            for (std::int64_t y = 0; y < p.out_h; ++y)
                for (std::int64_t x = 0; x < p.out_w; ++x)
                    ASSERT_NEAR(scalar_out[static_cast<std::size_t>((o * p.out_h + y) * p.out_w + x)], p.reference(o, y, x),
                                tolerance);
#if defined(FORGE_BACKEND_SIMD)
        const auto simd_out = p.run([](const Conv2d& conv) { simd::conv2d(conv); }, 0, c.out_channels);
        for (std::size_t i = 0; i < scalar_out.size(); ++i) ASSERT_NEAR(simd_out[i], scalar_out[i], tolerance) << i;
#endif
    }
}

// The front-end calls the kernel once per output channel; the pieces must equal one whole call.
TEST(Conv2dKernel, SplitCallsEqualOneCallBitForBit) {
    const Problem p(kCases[1], 91);
    auto check_split = [&](auto kernel) {
        std::vector<float> out = p.run(kernel, 0, 3);
        out = p.run(kernel, 3, 8, out);
        EXPECT_EQ(out, p.run(kernel, 0, 8));
    };
    check_split([](const Conv2d& conv) { scalar::conv2d(conv); });
#if defined(FORGE_BACKEND_SIMD)
    check_split([](const Conv2d& conv) { simd::conv2d(conv); });
#endif
}

}  // namespace
}  // namespace forge::kernels
