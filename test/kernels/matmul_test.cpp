// Matmul kernels: scalar against double-precision math; simd against scalar (simd builds),
// over sizes that straddle vector widths, micro-tiles and cache blocks, with every layout.
#include "kernels/backend.h"
#include "kernels/half.h"
#include "kernels/matmul.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace forge::kernels {
namespace {

struct Layouts {
    bool a_transposed;
    bool b_transposed;
};

std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (auto& v : values) v = uniform(rng);
    return values;
}

// A(i, p) of an m x k matrix stored row-major, or column-major when transposed.
template <typename T>
MatrixView<T> view(const std::vector<T>& data, std::int64_t rows, std::int64_t cols, bool transposed) {
    return transposed ? MatrixView<T>{data.data(), 1, rows} : MatrixView<T>{data.data(), cols, 1};
}

template <typename T>
double element(const MatrixView<T>& v, std::int64_t r, std::int64_t c) {
    const T raw = v.data[r * v.row_stride + c * v.col_stride];
    if constexpr (std::is_same_v<T, float>) return raw;
    else return f16_to_f32(raw);
}

template <typename T>
std::vector<double> reference(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView<float> a, MatrixView<T> b) {
    std::vector<double> c(static_cast<std::size_t>(m * n));
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
            double sum = 0;
            for (std::int64_t p = 0; p < k; ++p) sum += element(a, i, p) * element(b, p, j);
            c[static_cast<std::size_t>(i * n + j)] = sum;
        }
    }
    return c;
}

// |got - want| <= 1e-5 * k * (sum of |a||b| terms, bounded here by k since |a|,|b| <= 1).
void expect_close(const std::vector<float>& got, const std::vector<double>& want, std::int64_t k, const char* what) {
    const double tolerance = 1e-5 * static_cast<double>(std::max<std::int64_t>(k, 1)) * 1.0 + 1e-6;
    for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], tolerance) << what << " at " << i;
    }
}

template <typename Fn>
std::vector<float> run(Fn&& kernel, std::int64_t m, std::int64_t n, std::size_t scratch_floats) {
    std::vector<float> scratch(scratch_floats + 1), c(static_cast<std::size_t>(m * n), -7.0f);
    kernel(c, scratch);
    return c;
}

struct Size {
    std::int64_t m, n, k;
};

// Around the micro-tiles (12 or 6 rows x 32 or 16 columns), the 256-deep k block and the
// row/column blocks; m = 1 takes the matrix-vector path.
const std::vector<Size> kSizes = {
    {1, 1, 1},    {1, 37, 65},   {1, 64, 300},  {2, 3, 5},     {5, 17, 31},   {6, 16, 16},  {7, 33, 17},
    {12, 32, 64}, {13, 31, 255}, {11, 47, 257}, {25, 65, 100}, {1, 130, 513}, {3, 200, 40}, {200, 70, 9},
    {97, 401, 33}, {37, 20, 600}, {4, 4, 0},
};

template <typename T>
void check_layouts(bool simd_backend) {
    std::uint32_t seed = 1;
    for (const auto& [m, n, k] : kSizes) {
        for (const Layouts layout : {Layouts{false, false}, Layouts{false, true}, Layouts{true, false}, Layouts{true, true}}) {
            const auto a_values = random_values(static_cast<std::size_t>(m * k), ++seed);
            const auto b_float = random_values(static_cast<std::size_t>(k * n), ++seed);
            std::vector<T> b_values(b_float.size());
            for (std::size_t i = 0; i < b_float.size(); ++i) {
                if constexpr (std::is_same_v<T, float>) b_values[i] = b_float[i];
                else b_values[i] = f32_to_f16(b_float[i]);
            }
            const MatrixView<float> a = view(a_values, m, k, layout.a_transposed);
            const MatrixView<T> b = view(b_values, k, n, layout.b_transposed);
            const auto label = testing::Message() << m << "x" << n << "x" << k << " at=" << layout.a_transposed
                                                  << " bt=" << layout.b_transposed;
            SCOPED_TRACE(label);
            const auto scalar_c = run([&](std::vector<float>& c, std::vector<float>& s) {
                scalar::matmul(MatmulBlock<T>{m, n, k, a, b, {c.data(), n}}, s);
            }, m, n, scalar::matmul_scratch_floats(m, n, k));
            expect_close(scalar_c, reference(m, n, k, a, b), k, "scalar vs double");
            if (!simd_backend) continue;
#if defined(FORGE_BACKEND_SIMD)
            const auto simd_c = run([&](std::vector<float>& c, std::vector<float>& s) {
                simd::matmul(MatmulBlock<T>{m, n, k, a, b, {c.data(), n}}, s);
            }, m, n, simd::matmul_scratch_floats(m, n, k));
            std::vector<double> scalar_as_double(scalar_c.begin(), scalar_c.end());
            expect_close(simd_c, scalar_as_double, k, "simd vs scalar");
#endif
        }
    }
}

TEST(MatmulKernel, F32EveryLayout) { check_layouts<float>(kHasSimdBackend); }
TEST(MatmulKernel, F16WeightsEveryLayout) { check_layouts<std::uint16_t>(kHasSimdBackend); }

// A block of a larger matrix: row strides wider than the block, output rows too.
TEST(MatmulKernel, BlockOfALargerMatrixWritesOnlyItsBlock) {
    const std::int64_t m = 30, n = 70, k = 45, ld = 100;
    const auto a_values = random_values(static_cast<std::size_t>(m * ld), 5);
    const auto b_values = random_values(static_cast<std::size_t>(k * ld), 6);
    const MatrixView<float> a{a_values.data(), ld, 1};
    const MatrixView<float> b{b_values.data(), ld, 1};
    const auto want = reference(m, n, k, a, b);
    auto check = [&](auto kernel, std::size_t scratch_floats) {
        std::vector<float> c(static_cast<std::size_t>(m * ld), 3.0f), scratch(scratch_floats + 1);
        kernel(MatmulF32{m, n, k, a, b, {c.data(), ld}}, std::span<float>(scratch));
        for (std::int64_t i = 0; i < m; ++i) {
            for (std::int64_t j = 0; j < ld; ++j) {
                const float got = c[static_cast<std::size_t>(i * ld + j)];
                if (j < n) ASSERT_NEAR(got, want[static_cast<std::size_t>(i * n + j)], 1e-4) << i << "," << j;
                else ASSERT_EQ(got, 3.0f) << "wrote outside the block at " << i << "," << j;
            }
        }
    };
    check([](const MatmulF32& blk, std::span<float> s) { scalar::matmul(blk, s); }, scalar::matmul_scratch_floats(m, n, k));
#if defined(FORGE_BACKEND_SIMD)
    check([](const MatmulF32& blk, std::span<float> s) { simd::matmul(blk, s); }, simd::matmul_scratch_floats(m, n, k));
#endif
}

}  // namespace
}  // namespace forge::kernels

namespace forge::kernels {
namespace {

// matmul_rows: the LLM layout (B = Wᵀ), any m; each row of C is the bits that row gives alone
// (a one-row block sums in the GEMM's order), and the values agree with scalar like matmul's.
// Depths around the 16-step transpose and the 256-deep panel; n = 70 ends in a partial group;
// m on both sides of the simd kernel's few-rows path (up to 32 rows, in groups of up to 12).
template <typename T>
void check_rows_independent(std::int64_t k) {
    const std::int64_t n = 70;
    const auto w_float = random_values(static_cast<std::size_t>(n * k), 41);
    std::vector<T> w(w_float.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
        if constexpr (std::is_same_v<T, float>) w[i] = w_float[i];
        else w[i] = f32_to_f16(w_float[i]);
    }
    const MatrixView<T> b{w.data(), 1, k};
    for (const std::int64_t m : {1, 2, 3, 12, 13, 17, 25, 32, 33}) {
        const auto x = random_values(static_cast<std::size_t>(m * k), 42);
        const MatrixView<float> a{x.data(), k, 1};
        const auto together = run([&](std::vector<float>& c, std::vector<float>& s) {
            active::matmul_rows(MatmulBlock<T>{m, n, k, a, b, {c.data(), n}}, s);
        }, m, n, active::matmul_scratch_floats(m, n, k));
        const auto scalar_c = run([&](std::vector<float>& c, std::vector<float>& s) {
            scalar::matmul(MatmulBlock<T>{m, n, k, a, b, {c.data(), n}}, s);
        }, m, n, scalar::matmul_scratch_floats(m, n, k));
        expect_close(together, std::vector<double>(scalar_c.begin(), scalar_c.end()), k, "matmul_rows vs scalar");
        for (std::int64_t i = 0; i < m; ++i) {
            const MatrixView<float> row{x.data() + i * k, k, 1};
            const auto alone = run([&](std::vector<float>& c, std::vector<float>& s) {
                active::matmul_rows(MatmulBlock<T>{1, n, k, row, b, {c.data(), n}}, s);
            }, 1, n, active::matmul_scratch_floats(1, n, k));
            for (std::int64_t j = 0; j < n; ++j) {
                ASSERT_EQ(alone[static_cast<std::size_t>(j)], together[static_cast<std::size_t>(i * n + j)])
                    << "m=" << m << " row " << i << " col " << j;
            }
        }
    }
}

TEST(MatmulKernel, RowsDoNotDependOnTheirNeighboursF32) {
    for (const std::int64_t k : {1, 16, 300, 512, 529}) check_rows_independent<float>(k);
}
TEST(MatmulKernel, RowsDoNotDependOnTheirNeighboursF16) {
    for (const std::int64_t k : {1, 16, 300, 512, 529}) check_rows_independent<std::uint16_t>(k);
}

}  // namespace
}  // namespace forge::kernels
