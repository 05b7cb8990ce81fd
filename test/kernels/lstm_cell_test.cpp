// The LSTM cell kernel: the scalar one against the equations in double precision (exact
// tanh/sigmoid, and NeuralAmpModelerCore's fast_tanh formula), the simd one against the scalar
// one in simd builds, at hidden sizes that leave every tail.
#include "kernels/lstm_cell.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::kLengths;
using testing::uniform;

struct Cell {
    std::vector<float> gates, c, h;
};

Cell inputs(std::size_t n, std::uint32_t seed) {
    return {uniform(4 * n, -6.0f, 6.0f, seed), uniform(n, -3.0f, 3.0f, seed + 1), std::vector<float>(n)};
}

double fast_tanh(double x) {  // Core's formula (NAM/activations.h), in double
    const double ax = std::fabs(x), x2 = x * x;
    return x * (2.45550750702956 + 2.45550750702956 * ax + (0.893229853513558 + 0.821226666969744 * ax) * x2) /
           (2.44506634652299 + (2.44506634652299 + x2) * std::fabs(x + 0.814642734961073 * x * ax));
}

void expect_matches_equations(bool fast) {
    auto sigmoid = [fast](double x) { return fast ? 0.5 * (fast_tanh(0.5 * x) + 1.0) : 1.0 / (1.0 + std::exp(-x)); };
    auto tanh_ = [fast](double x) { return fast ? fast_tanh(x) : std::tanh(x); };
    // The fast sigmoid is (fast_tanh(x/2) + 1) / 2: near 0 the float rounding of fast_tanh
    // (about 1e-7 absolute, measured 1.2e-7) is all that is left, so the bound is absolute.
    const double gate_abs = fast ? 1e-6 : 1e-7;
    for (std::size_t n : kLengths) {
        Cell cell = inputs(n, static_cast<std::uint32_t>(n) + 11);
        const Cell before = cell;
        scalar::lstm_cell(cell.gates, cell.c, cell.h, fast);
        for (std::size_t k = 0; k < n; ++k) {
            const double i = sigmoid(before.gates[k]), f = sigmoid(before.gates[n + k]);
            const double g = tanh_(before.gates[2 * n + k]), o = sigmoid(before.gates[3 * n + k]);
            const double c = f * before.c[k] + i * g;
            ASSERT_TRUE(close(cell.gates[k], i, 1e-6, gate_abs)) << "i, n=" << n << " k=" << k;
            ASSERT_TRUE(close(cell.gates[n + k], f, 1e-6, gate_abs)) << "f, n=" << n << " k=" << k;
            ASSERT_TRUE(close(cell.gates[2 * n + k], g, 1e-6, gate_abs)) << "g, n=" << n << " k=" << k;
            ASSERT_TRUE(close(cell.gates[3 * n + k], o, 1e-6, gate_abs)) << "o, n=" << n << " k=" << k;
            ASSERT_TRUE(close(cell.c[k], c, 1e-6, 1e-6)) << "c, n=" << n << " k=" << k;
            ASSERT_TRUE(close(cell.h[k], o * tanh_(c), 1e-6, 1e-6)) << "h, n=" << n << " k=" << k;
        }
    }
}

TEST(LstmCell, ScalarMatchesTheEquations) { expect_matches_equations(false); }
TEST(LstmCell, ScalarFastMatchesCoresApproximation) { expect_matches_equations(true); }

#if defined(FORGE_BACKEND_SIMD)
// Measured max |simd - scalar| over these inputs (Xeon AVX512-FP16; the scalar kernels built
// without FMA contraction, the simd ones with xsimd's exp/tanh): gates 1.8e-7 exact / 4.2e-7
// fast, c 4.8e-7 / 7.2e-7, h 1.8e-7 / 4.4e-7 (values of size ~1: absolute). Bounds: 10x.
constexpr double kGateBound = 4.2e-6, kStateBound = 7.2e-6;

TEST(LstmCell, SimdMatchesScalar) {
    for (const bool fast : {false, true}) {
        for (std::size_t n : kLengths) {
            Cell want = inputs(n, static_cast<std::uint32_t>(n) + 5), got = want;
            scalar::lstm_cell(want.gates, want.c, want.h, fast);
            simd::lstm_cell(got.gates, got.c, got.h, fast);
            for (std::size_t k = 0; k < 4 * n; ++k)
                ASSERT_TRUE(close(got.gates[k], want.gates[k], 1e-6, kGateBound)) << "fast=" << fast << " n=" << n << " k=" << k;
            for (std::size_t k = 0; k < n; ++k) {
                ASSERT_TRUE(close(got.c[k], want.c[k], 1e-6, kStateBound)) << "fast=" << fast << " n=" << n << " k=" << k;
                ASSERT_TRUE(close(got.h[k], want.h[k], 1e-6, kStateBound)) << "fast=" << fast << " n=" << n << " k=" << k;
            }
        }
    }
}
#endif

}  // namespace
}  // namespace forge::kernels
