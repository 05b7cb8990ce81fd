// infer::argmax_rows against std::max_element (the first of equal maxima), the reference the
// greedy loops it replaced used: random rows of several widths (whole vectors and a ragged
// tail), a maximum repeated in one row, and rows split over the thread pool.
#include "core/infer/row_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace forge::infer {
namespace {

std::vector<std::int64_t> reference(const std::vector<float>& x, std::int64_t rows, std::int64_t width) {
    std::vector<std::int64_t> out;
    for (std::int64_t i = 0; i < rows; ++i) {
        const auto row = x.begin() + i * width;
        out.push_back(std::max_element(row, row + width) - row);
    }
    return out;
}

TEST(ArgmaxRows, MatchesMaxElementOnRandomRows) {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    for (const std::int64_t width : {1, 15, 16, 17, 1000, 151936}) {
        const std::int64_t rows = 5;
        std::vector<float> x(static_cast<std::size_t>(rows * width));
        for (float& v : x) v = normal(rng);
        std::vector<std::int64_t> out(static_cast<std::size_t>(rows), -1);
        argmax_rows(x, rows, width, out);
        EXPECT_EQ(out, reference(x, rows, width)) << "width " << width;
    }
}

TEST(ArgmaxRows, TheFirstOfEqualMaximaWins) {
    const std::int64_t width = 100;
    std::vector<float> x(2 * width, 0.0f);
    x[37] = x[38] = x[90] = 5.0f;            // row 0: three equal maxima
    x[width + 99] = x[width + 3] = -0.0f;    // row 1: all zero (and -0): index 0
    std::vector<std::int64_t> out(2, -1);
    argmax_rows(x, 2, width, out);
    EXPECT_EQ(out, reference(x, 2, width));
    EXPECT_EQ(out[0], 37);
    EXPECT_EQ(out[1], 0);
}

TEST(ArgmaxRows, RejectsBuffersTooSmall) {
    std::vector<float> x(10);
    std::vector<std::int64_t> out(2);
    EXPECT_THROW(argmax_rows(x, 2, 6, out), std::exception);
    EXPECT_THROW(argmax_rows(x, 3, 3, out), std::exception);
}

}  // namespace
}  // namespace forge::infer
