// The interleaved GEMMs (simd builds with AVX-512 VNNI): Q4_0 / Q5_0 / Q5_1 / Q8_0 / MXFP4
// (kernels/quant_gemm_interleaved.h) and Q4_K / Q5_K / Q6_K (kernels/quant_gemm_interleaved_k.h;
// all but Q8_0 also on AVX2, whose kernels, simd::avx2::gemm, run the same checks on AVX-512
// machines and must give the AVX-512 kernels' bits).
// Every output within the contract bound of kernels/quant_dot.h from scalar::dot (MXFP4, Q5_0,
// Q5_1: equal to it bit for bit, always), bit for bit equal to it where every partial sum is exact
// (power-of-two scales, small activations), the
// same bits however the outputs are cut (many activation rows or one, one call or group by
// group: prefill, decode and every thread split agree), and the repacking reversible row by row.
#include "kernels/quant_dot.h"
#include "kernels/quant_gemm_interleaved.h"
#include "kernels/quant_gemm_interleaved_k.h"
#include "test/kernels/quant_contract.h"
#include "test/kernels/quant_test_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#if defined(FORGE_INTERLEAVED_K_GEMM)

namespace forge::kernels {
namespace {

template <typename Block>
constexpr bool kIsK = Block::kSize == kSuperBlock;

// The kernel a check runs: simd::gemm unless a test names another.
template <typename Block>
using GemmKernel = void (*)(const InterleavedGemm<Block>&) noexcept;

template <typename Block>
std::size_t group_bytes(std::int64_t blocks) {
    if constexpr (kIsK<Block>) return interleaved_k_group_bytes<Block>(blocks);
    else return interleaved_group_bytes<Block>(blocks);
}

// A weight matrix [n x blocks] with its interleaved copy, and activations [m x blocks] with
// their per-block info (32-element formats).
template <typename Block>
struct Operands {
    using Act = InterleavedActivation<Block>;
    std::int64_t n, m, blocks;
    std::vector<Block> w;
    std::vector<Act> a;
    std::vector<CacheLine> packed;
    std::vector<ActivationBlockInfo> info;
    GemmKernel<Block> kernel;

    Operands(std::int64_t n_, std::int64_t m_, std::int64_t blocks_, std::vector<Block> w_, std::vector<Act> a_,
             GemmKernel<Block> kernel_ = simd::gemm)
        : n(n_), m(m_), blocks(blocks_), w(std::move(w_)), a(std::move(a_)), kernel(kernel_) {
        const std::int64_t groups = (n + kInterleave - 1) / kInterleave;
        packed.resize(static_cast<std::size_t>(groups) * group_bytes<Block>(blocks) / sizeof(CacheLine));
        simd::interleave(w.data(), n, blocks, packed.front().bytes);
        if constexpr (!kIsK<Block>) {
            info.resize(a.size());
            simd::activation_info(a.data(), static_cast<std::int64_t>(a.size()), kInterleavedOffset<Block>, info.data());
        }
    }

    const std::byte* group(std::int64_t g) const {
        return packed.front().bytes + static_cast<std::size_t>(g) * group_bytes<Block>(blocks);
    }

    // Outputs [row_begin, row_end) x [group_begin * 16, col_end) into y (stride y_stride).
    void run(std::int64_t row_begin, std::int64_t row_end, std::int64_t group_begin, std::int64_t col_end,
             std::vector<float>& y, std::int64_t y_stride) const {
        const std::int64_t c0 = group_begin * kInterleave;
        const ActivationBlockInfo* a_info = info.empty() ? nullptr : info.data() + row_begin * blocks;
        kernel(InterleavedGemm<Block>{row_end - row_begin, col_end - c0, blocks, a.data() + row_begin * blocks, a_info,
                                          blocks, group(group_begin), y.data() + row_begin * y_stride + c0, y_stride});
    }

    std::vector<Block> weight_row(std::int64_t c) const { return {w.begin() + c * blocks, w.begin() + (c + 1) * blocks}; }
    std::vector<Act> activation_row(std::int64_t r) const { return {a.begin() + r * blocks, a.begin() + (r + 1) * blocks}; }

    float spec(std::int64_t r, std::int64_t c) const {
        return scalar::dot(std::span<const Block>(weight_row(c)), std::span<const Act>(activation_row(r)));
    }
    double magnitude(std::int64_t r, std::int64_t c) const { return absolute_product_sum(weight_row(c), activation_row(r)); }
};

template <typename Block>
Operands<Block> random_operands(std::int64_t n, std::int64_t m, std::int64_t blocks, GemmKernel<Block> kernel) {
    std::mt19937 rng(static_cast<unsigned>(n * 1000 + m * 10 + blocks));
    return {n, m, blocks, random_blocks<Block>(static_cast<std::size_t>(n * blocks), rng),
            random_activations<InterleavedActivation<Block>>(static_cast<std::size_t>(m * blocks), rng), kernel};
}

// The whole product in one call, with padding between output rows that must stay untouched.
template <typename Block>
void check_against_spec(const Operands<Block>& op) {
    const std::int64_t y_stride = op.n + 5;
    std::vector<float> y(static_cast<std::size_t>(op.m * y_stride), -1.0f);
    op.run(0, op.m, 0, op.n, y, y_stride);
    for (std::int64_t r = 0; r < op.m; ++r) {
        for (std::int64_t c = 0; c < op.n; ++c) {
            ASSERT_NEAR(y[static_cast<std::size_t>(r * y_stride + c)], op.spec(r, c),
                        kGemmBound<Block> * op.magnitude(r, c))
                << op.n << "x" << op.m << "x" << op.blocks << " at (" << r << ", " << c << ")";
        }
        for (std::int64_t c = op.n; c < y_stride; ++c) ASSERT_EQ(y[static_cast<std::size_t>(r * y_stride + c)], -1.0f);
    }
}

// One activation row at a time and one group at a time give the bits of the whole call.
template <typename Block>
void check_split_independence(const Operands<Block>& op) {
    std::vector<float> whole(static_cast<std::size_t>(op.m * op.n)), split(whole.size());
    op.run(0, op.m, 0, op.n, whole, op.n);
    for (std::int64_t r = 0; r < op.m; ++r) {
        for (std::int64_t g = 0; g * kInterleave < op.n; ++g) {
            op.run(r, r + 1, g, std::min(op.n, (g + 1) * kInterleave), split, op.n);
        }
    }
    for (std::size_t i = 0; i < whole.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(whole[i]), std::bit_cast<std::uint32_t>(split[i]))
            << op.n << "x" << op.m << "x" << op.blocks << " at " << i;
    }
}

// Power-of-two scales and the widest activation range that keeps M < 2^24 x the smallest
// scale product for every output: every partial sum is exact, so the kernel must equal
// scalar::dot bit for bit (a wrong integer anywhere shows).
template <typename Block>
void check_exact(std::int64_t n, std::int64_t m, std::int64_t blocks, GemmKernel<Block> kernel) {
    using Act = InterleavedActivation<Block>;
    std::mt19937 rng(static_cast<unsigned>(7 + n + m + blocks));
    auto w = random_blocks<Block>(static_cast<std::size_t>(n * blocks), rng);
    use_power_of_two_scales(w, rng);
    for (int limit = 127;; limit /= 2) {
        const Operands<Block> op(n, m, blocks, w, small_activations<Act>(static_cast<std::size_t>(m * blocks), limit, rng),
                                 kernel);
        double largest = 0;
        for (std::int64_t r = 0; r < m; ++r) {
            for (std::int64_t c = 0; c < n; ++c) largest = std::max(largest, op.magnitude(r, c));
        }
        if (largest >= 0x1p24 * kSmallestScaleProduct) {
            ASSERT_GT(limit, 1) << "no exact case for " << n << "x" << m << "x" << blocks;
            continue;
        }
        std::vector<float> y(static_cast<std::size_t>(m * n));
        op.run(0, m, 0, n, y, n);
        for (std::int64_t r = 0; r < m; ++r) {
            for (std::int64_t c = 0; c < n; ++c) {
                ASSERT_EQ(std::bit_cast<std::uint32_t>(y[static_cast<std::size_t>(r * n + c)]),
                          std::bit_cast<std::uint32_t>(op.spec(r, c)))
                    << n << "x" << m << "x" << blocks << " limit " << limit << " at (" << r << ", " << c << ")";
            }
        }
        return;
    }
}

// Rows around the 16-row group, activation rows around the 8-row tile, several row lengths.
template <typename Block>
void check_format(std::initializer_list<std::int64_t> block_counts, GemmKernel<Block> kernel = simd::gemm) {
    for (const std::int64_t n : {1, 15, 16, 17, 40}) {
        for (const std::int64_t m : {1, 2, 7, 8, 9, 17}) {
            for (const std::int64_t blocks : block_counts) {
                const auto op = random_operands<Block>(n, m, blocks, kernel);
                check_against_spec(op);
                check_split_independence(op);
                check_exact<Block>(n, m, blocks, kernel);
            }
        }
    }
}

#if defined(FORGE_INTERLEAVED_NIBBLE_GEMM)
TEST(QuantGemmInterleaved, Q4_0) { check_format<BlockQ4_0>({1, 3, 8, 33}); }
// 36 blocks: Gemma 3 1B's 1152-wide rows (its Q4_K_M file keeps them in Q5_0).
TEST(QuantGemmInterleaved, Q5_0) { check_format<BlockQ5_0>({1, 3, 8, 36}); }
TEST(QuantGemmInterleaved, Q5_1) { check_format<BlockQ5_1>({1, 3, 8, 36}); }
#endif
#if defined(FORGE_INTERLEAVED_GEMM)
TEST(QuantGemmInterleaved, Q8_0) { check_format<BlockQ8_0>({1, 3, 8, 33}); }
#endif
#if defined(FORGE_INTERLEAVED_NIBBLE_GEMM)
// 90 blocks: gpt-oss's 2880-wide rows.
TEST(QuantGemmInterleaved, MXFP4) { check_format<BlockMXFP4>({1, 3, 8, 33, 90}); }

// Every kind of E8M0 exponent: 0 and 1 (the subnormal scales 2^-128 and 2^-127 of
// e8m0_to_f32_half), 2 (the smallest normal), around 1, and large ones (below overflow of the
// sums), mixed within rows: the kernel's bits are scalar::dot's.
void check_mxfp4_exponents(GemmKernel<BlockMXFP4> kernel) {
    std::mt19937 rng(13);
    constexpr std::uint8_t kExponents[] = {0, 1, 2, 3, 100, 127, 128, 129, 160, 220};
    const std::int64_t n = 33, m = 9, blocks = 7;
    auto w = random_blocks<BlockMXFP4>(static_cast<std::size_t>(n * blocks), rng);
    for (std::size_t i = 0; i < w.size(); ++i) w[i].e = kExponents[(i * 7 + i / 5) % std::size(kExponents)];
    check_against_spec(Operands<BlockMXFP4>(n, m, blocks, std::move(w),
                                       random_activations<BlockQ8_0>(static_cast<std::size_t>(m * blocks), rng), kernel));
}

TEST(QuantGemmInterleaved, MXFP4Exponents) { check_mxfp4_exponents(simd::gemm); }
#endif
TEST(QuantGemmInterleaved, Q4_K) { check_format<BlockQ4_K>({1, 2, 4}); }
TEST(QuantGemmInterleaved, Q5_K) { check_format<BlockQ5_K>({1, 2, 4}); }
TEST(QuantGemmInterleaved, Q6_K) { check_format<BlockQ6_K>({1, 2, 4}); }

// Activation blocks whose quants are all `value` (bsums consistent), power-of-two scales.
template <typename Act>
std::vector<Act> constant_activations(std::size_t count, std::int8_t value, std::mt19937& rng) {
    auto a = small_activations<Act>(count, 1, rng);
    for (auto& b : a) {
        b.qs.fill(value);
        if constexpr (std::is_same_v<Act, BlockQ8_K>) b.bsums.fill(static_cast<std::int16_t>(16 * value));
    }
    return a;
}

// Extreme codes: every weight bit set (Q8_0: -1; Q4_K / Q5_K scales and mins 63, Q6_K scales
// at -128) and Q8_0 weights at -128 (stored as unsigned 0): the integer sums stay exact.
template <typename Block>
void check_extremes(std::uint8_t fill, std::vector<InterleavedActivation<Block>> a = {},
                    GemmKernel<Block> kernel = simd::gemm) {
    std::mt19937 rng(3);
    std::vector<Block> w(17 * 3);
    std::memset(static_cast<void*>(w.data()), fill, w.size() * sizeof(Block));
    if constexpr (std::is_same_v<Block, BlockQ6_K>) {
        for (auto& b : w) b.scales.fill(-128);
    }
    if constexpr (std::is_same_v<Block, BlockQ8_0>) {
        for (auto& b : w) b.qs.fill(static_cast<std::int8_t>(fill));
    }
    use_power_of_two_scales(w, rng);
    if (a.empty()) a = small_activations<InterleavedActivation<Block>>(2 * 3, 127, rng);
    const Operands<Block> op(17, 2, 3, std::move(w), std::move(a), kernel);
    check_against_spec(op);
}

// The same weights against activations all at -128 or all at 127: the largest partial sums
// (Q4_K's half-slice sums, which the kernel multiplies as int16, reach 16 * 15 * -128 = -30720).
template <typename Block>
void check_extreme_activations(std::uint8_t fill, GemmKernel<Block> kernel = simd::gemm) {
    std::mt19937 rng(5);
    for (const std::int8_t value : {std::int8_t{-128}, std::int8_t{127}}) {
        check_extremes<Block>(fill, constant_activations<InterleavedActivation<Block>>(2 * 3, value, rng), kernel);
    }
}

TEST(QuantGemmInterleaved, ExtremeCodes) {
#if defined(FORGE_INTERLEAVED_NIBBLE_GEMM)
    check_extremes<BlockQ4_0>(0xFF);
    check_extremes<BlockQ5_0>(0xFF);  // every code 31 (+15), qh all set
    check_extremes<BlockQ5_0>(0x00);  // every code 0 (-16)
    check_extremes<BlockQ5_1>(0xFF);
    check_extremes<BlockMXFP4>(0xFF);  // code 15: -12
    check_extremes<BlockMXFP4>(0x77);  // code 7: +12, the largest level (24)
#endif
#if defined(FORGE_INTERLEAVED_GEMM)
    check_extremes<BlockQ8_0>(0x80);
    check_extremes<BlockQ8_0>(0xFF);
#endif
    check_extremes<BlockQ4_K>(0xFF);
    check_extremes<BlockQ5_K>(0xFF);
    check_extremes<BlockQ6_K>(0xFF);
}

TEST(QuantGemmInterleaved, ExtremeActivations) {
#if defined(FORGE_INTERLEAVED_NIBBLE_GEMM)
    check_extreme_activations<BlockQ4_0>(0xFF);
    for (const std::uint8_t fill : {0x00, 0xFF}) {
        check_extreme_activations<BlockQ5_0>(fill);
        check_extreme_activations<BlockQ5_1>(fill);
    }
    check_extreme_activations<BlockMXFP4>(0xFF);
    check_extreme_activations<BlockMXFP4>(0x77);
#endif
#if defined(FORGE_INTERLEAVED_GEMM)
    check_extreme_activations<BlockQ8_0>(0x80);
    check_extreme_activations<BlockQ8_0>(0x7F);
#endif
    for (const std::uint8_t fill : {0x00, 0xFF}) {
        check_extreme_activations<BlockQ4_K>(fill);
        check_extreme_activations<BlockQ5_K>(fill);
        check_extreme_activations<BlockQ6_K>(fill);
    }
}

// deinterleave_row is interleave's inverse: every row of every group comes back byte for byte.
template <typename Block>
void check_row_round_trip() {
    std::mt19937 rng(11);
    const std::int64_t n = 37, blocks = 3;
    auto w = random_blocks<Block>(static_cast<std::size_t>(n * blocks), rng);
    const Operands<Block> op(n, 1, blocks, w,
                             random_activations<InterleavedActivation<Block>>(static_cast<std::size_t>(blocks), rng));
    std::vector<Block> row(static_cast<std::size_t>(blocks));
    for (std::int64_t r = 0; r < n; ++r) {
        simd::deinterleave_row(op.group(r / kInterleave), blocks, static_cast<int>(r % kInterleave), row.data());
        ASSERT_EQ(std::memcmp(row.data(), w.data() + r * blocks, row.size() * sizeof(Block)), 0) << "row " << r;
    }
}

TEST(QuantGemmInterleaved, RowsComeBackUnchanged) {
#if defined(FORGE_INTERLEAVED_NIBBLE_GEMM)
    check_row_round_trip<BlockQ4_0>();
    check_row_round_trip<BlockQ5_0>();
    check_row_round_trip<BlockQ5_1>();
    check_row_round_trip<BlockMXFP4>();
#endif
#if defined(FORGE_INTERLEAVED_GEMM)
    check_row_round_trip<BlockQ8_0>();
#endif
    check_row_round_trip<BlockQ4_K>();
    check_row_round_trip<BlockQ5_K>();
    check_row_round_trip<BlockQ6_K>();
}

#if defined(FORGE_INTERLEAVED_AVX2) && defined(FORGE_INTERLEAVED_GEMM)
// On an AVX-512 machine, the AVX2 kernels (vpmaddubsw and int16 partial sums: Q4_0, Q5_0, Q5_1,
// MXFP4 and the K-quants) through every check above. (Where the build has only AVX2, simd::gemm is that kernel and the tests above
// run it.)
template <typename Block>
void check_avx2() {
    const GemmKernel<Block> kernel = simd::avx2::gemm;
    check_format<Block>({1, 2, 4}, kernel);
    check_extremes<Block>(0xFF, {}, kernel);
    for (const std::uint8_t fill : {0x00, 0xFF}) check_extreme_activations<Block>(fill, kernel);
}

TEST(QuantGemmInterleavedAvx2, Q4_0) { check_avx2<BlockQ4_0>(); }
TEST(QuantGemmInterleavedAvx2, Q5_0) {
    check_avx2<BlockQ5_0>();
    check_extremes<BlockQ5_0>(0x00, {}, simd::avx2::gemm);
}
TEST(QuantGemmInterleavedAvx2, Q5_1) { check_avx2<BlockQ5_1>(); }
TEST(QuantGemmInterleavedAvx2, MXFP4) {
    check_avx2<BlockMXFP4>();
    check_extremes<BlockMXFP4>(0x77, {}, simd::avx2::gemm);
    check_extreme_activations<BlockMXFP4>(0x77, simd::avx2::gemm);
    check_mxfp4_exponents(simd::avx2::gemm);
}
TEST(QuantGemmInterleavedAvx2, Q4_K) { check_avx2<BlockQ4_K>(); }
TEST(QuantGemmInterleavedAvx2, Q5_K) { check_avx2<BlockQ5_K>(); }
TEST(QuantGemmInterleavedAvx2, Q6_K) { check_avx2<BlockQ6_K>(); }

// The same float steps on the same integers: the AVX2 kernel gives the AVX-512 kernel's bits
// (where the build has both), prefill tiles and decode alike.
template <typename Block>
void check_avx2_bits_equal_avx512() {
    for (const std::int64_t m : {1, 3, 8, 13}) {
        const auto op = random_operands<Block>(40, m, 5, simd::gemm);
        const auto avx2 = random_operands<Block>(40, m, 5, simd::avx2::gemm);
        std::vector<float> y(static_cast<std::size_t>(m * op.n)), y_avx2(y.size());
        op.run(0, m, 0, op.n, y, op.n);
        avx2.run(0, m, 0, op.n, y_avx2, op.n);
        for (std::size_t i = 0; i < y.size(); ++i) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(y[i]), std::bit_cast<std::uint32_t>(y_avx2[i])) << "m " << m << " at " << i;
        }
    }
}

TEST(QuantGemmInterleavedAvx2, SameBitsAsAvx512) {
    check_avx2_bits_equal_avx512<BlockQ4_0>();
    check_avx2_bits_equal_avx512<BlockQ5_0>();
    check_avx2_bits_equal_avx512<BlockQ5_1>();
    check_avx2_bits_equal_avx512<BlockMXFP4>();
    check_avx2_bits_equal_avx512<BlockQ4_K>();
    check_avx2_bits_equal_avx512<BlockQ5_K>();
    check_avx2_bits_equal_avx512<BlockQ6_K>();
}
#endif

}  // namespace
}  // namespace forge::kernels

#endif
