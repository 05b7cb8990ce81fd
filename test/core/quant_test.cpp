// The quantization front-end: tensor-level quantize/dequantize agree with the kernels and
// with themselves across thread counts, the inference front-end's linear layer (block-format
// weights, interleaved where the build has the kernel, as a model loads them) matches
// double-precision math on the decoded operands, and the decode path (one row of x)
// allocates nothing once warm.
#include "core/infer/linear.h"
#include "core/quant/quantize.h"
#include "core/thread_pool.h"
#include "kernels/quant_blocks.h"
#include "kernels/quant_dot.h"
#include "kernels/quant_gemm_interleaved.h"

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <random>
#include <span>
#include <utility>
#include <vector>

// Counting allocations: every operator new in this test binary goes through here; counting is
// switched on only around the call under test.
namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
    if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
// Out of line, so that GCC does not pair the inlined free() with a `new` expression and warn.
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace forge {
namespace {

Tensor random_tensor(const Shape& shape, std::uint32_t seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    Tensor t = Tensor::empty(shape);
    for (auto& v : t.span<float>()) v = normal(rng);
    return t;
}

const DType kEncodable[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::Q2_K,
                            DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::Q8_K, DType::TQ1_0,
                            DType::TQ2_0, DType::F16,  DType::BF16};

TEST(Quant, CapabilitiesAreConsistent) {
    for (const DType t : kEncodable) {
        EXPECT_TRUE(quant::can_encode(t)) << dtype_name(t);
        EXPECT_TRUE(quant::can_decode(t)) << dtype_name(t);
    }
    EXPECT_TRUE(quant::can_decode(DType::IQ4_NL));
    EXPECT_FALSE(quant::can_encode(DType::IQ4_NL));
    EXPECT_TRUE(quant::can_decode(DType::MXFP4));
    EXPECT_FALSE(quant::can_encode(DType::MXFP4));
    EXPECT_TRUE(quant::has_dot_kernel(DType::MXFP4));
    EXPECT_FALSE(quant::can_decode(DType::IQ2_XXS));  // absent rather than approximately right
    EXPECT_FALSE(quant::has_dot_kernel(DType::F32));
    EXPECT_TRUE(quant::has_dot_kernel(DType::Q6_K));
}

TEST(Quant, RoundTripErrorIsSmallAndThreadCountDoesNotMatter) {
    const Tensor x = random_tensor({8, 512}, 1);
    for (const DType t : kEncodable) {
        ThreadPool::set_global_threads(1);
        const Tensor q1 = quant::quantize(x, t);
        ThreadPool::set_global_threads(3);
        const Tensor q3 = quant::quantize(x, t);
        ASSERT_EQ(q1.nbytes(), dtype_bytes(t, 8 * 512));
        EXPECT_EQ(std::memcmp(q1.raw_data(), q3.raw_data(), q1.nbytes()), 0) << dtype_name(t);
        const Tensor back = quant::dequantize(q3);
        EXPECT_EQ(back.shape(), x.shape());
        double err = 0, ref = 0;
        const auto a = x.span<float>(), b = back.span<float>();
        for (std::size_t i = 0; i < a.size(); ++i) {
            err += (a[i] - b[i]) * (a[i] - b[i]);
            ref += a[i] * a[i];
        }
        const double rel = std::sqrt(err / ref);
        // Ternary formats only keep signs; everything else is a real 2..8-bit code.
        EXPECT_LT(rel, t == DType::TQ1_0 || t == DType::TQ2_0 ? 0.9 : 0.5) << dtype_name(t);
    }
    ThreadPool::set_global_threads(ThreadPool::default_threads());
}

TEST(Quant, RejectsBadInput) {
    EXPECT_THROW(quant::quantize(random_tensor({3, 48}, 2), DType::Q4_0), Error);  // 48 % 32 != 0
    EXPECT_THROW(quant::quantize(random_tensor({1, 256}, 2), DType::IQ2_XS), Error);
    EXPECT_THROW(quant::quantize(Tensor::zeros({1, 32}, DType::F16), DType::Q4_0), Error);
}

// y = x · Wᵀ from decoded weights and decoded activation blocks, in double.
Tensor reference_matmul(const Tensor& x, const Tensor& w) {
    const DType act = dtype_traits(w.dtype()).block_size == 32 ? DType::Q8_0 : DType::Q8_K;
    const Tensor xq = quant::dequantize(quant::quantize(x, act));
    const Tensor wf = quant::dequantize(w);
    const std::int64_t m = x.size(0), n = w.size(0), k = w.size(1);
    Tensor y = Tensor::empty({m, n});
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (std::int64_t l = 0; l < k; ++l) s += static_cast<double>(xq.span<float>()[i * k + l]) * wf.span<float>()[j * k + l];
            y.span<float>()[i * n + j] = static_cast<float>(s);
        }
    }
    return y;
}

// y = x · wᵀ through infer::linear, the weights prepared as a model's loader prepares them.
struct QuantLinear {
    infer::Linear layer;
    infer::ActivationScratch scratch;
    QuantLinear(const Tensor& w, std::int64_t max_rows)
        : layer{w, Tensor{}, infer::InterleavedWeights::from(w, false)}, scratch(max_rows, w.size(1)) {}
    void into(const Tensor& x, Tensor& y) { infer::linear(layer, x.span<float>(), x.size(0), y.span<float>(), scratch); }
    Tensor operator()(const Tensor& x) {
        Tensor y = Tensor::empty({x.size(0), layer.n_out()});
        into(x, y);
        return y;
    }
};

Tensor quant_matmul(const Tensor& x, const Tensor& w) { return QuantLinear(w, x.size(0))(x); }

TEST(QuantMatmul, MatchesDoublePrecisionOnDecodedOperands) {
    const DType formats[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::Q2_K,
                             DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::TQ2_0};
    for (const DType t : formats) {
        const Tensor w = quant::quantize(random_tensor({24, 512}, 3, 0.05f), t);
        for (const std::int64_t m : {1, 5}) {
            const Tensor x = random_tensor({m, 512}, 4);
            const Tensor y = quant_matmul(x, w);
            const Tensor want = reference_matmul(x, w);
            ASSERT_EQ(y.shape(), (Shape{m, 24}));
            for (std::int64_t i = 0; i < y.numel(); ++i) {
                EXPECT_NEAR(y.span<float>()[i], want.span<float>()[i], 1e-4) << dtype_name(t) << " m=" << m;
            }
        }
    }
}

// forge has no MXFP4 encoder, so its weights are random blocks: any code, exponents e in
// [e_lo, e_hi] (scales 2^(e - 128)).
Tensor random_mxfp4(std::int64_t n, std::int64_t k, unsigned seed, int e_lo, int e_hi) {
    Tensor w = Tensor::empty({n, k}, DType::MXFP4);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> byte(0, 255), exponent(e_lo, e_hi);
    for (auto& b : std::span(reinterpret_cast<kernels::BlockMXFP4*>(w.raw_data()), w.nbytes() / sizeof(kernels::BlockMXFP4))) {
        b.e = static_cast<std::uint8_t>(exponent(rng));
        for (auto& q : b.qs) q = static_cast<std::uint8_t>(byte(rng));
    }
    return w;
}

// Scales 2^-9 .. 2^-7, weights of the same size as the encoded formats' above.
TEST(QuantMatmul, Mxfp4MatchesDoublePrecisionOnDecodedOperands) {
    const Tensor w = random_mxfp4(24, 512, 8, 119, 121);
    for (const std::int64_t m : {1, 5}) {
        const Tensor x = random_tensor({m, 512}, 4);
        const Tensor y = quant_matmul(x, w);
        const Tensor want = reference_matmul(x, w);
        for (std::int64_t i = 0; i < y.numel(); ++i) EXPECT_NEAR(y.span<float>()[i], want.span<float>()[i], 1e-4) << "m=" << m;
    }
}

// Every output of w [n, k] through the linear layer as a model loads it (interleaved where the
// build has the kernel), for one row (decode) and many (prefill), has scalar::dot's bits for its
// row pair: the promise of the interleaved MXFP4, Q5_0 and Q5_1 kernels
// (kernels/quant_gemm_interleaved.h), and of the scalar backend.
template <typename Block>
void expect_scalar_dot_bits(const Tensor& w) {
    const std::int64_t n = w.size(0), k = w.size(1), blocks = k / Block::kSize;
    const std::span wb(reinterpret_cast<const Block*>(w.raw_data()), w.nbytes() / sizeof(Block));
    for (const std::int64_t m : {1, 9}) {
        const Tensor x = random_tensor({m, k}, 10);
        const Tensor y = quant_matmul(x, w);
        const Tensor xq = quant::quantize(x, DType::Q8_0);
        const std::span ab(reinterpret_cast<const kernels::BlockQ8_0*>(xq.raw_data()), xq.nbytes() / sizeof(kernels::BlockQ8_0));
        for (std::int64_t i = 0; i < m; ++i) {
            for (std::int64_t j = 0; j < n; ++j) {
                const float want = kernels::scalar::dot(wb.subspan(static_cast<std::size_t>(j * blocks), static_cast<std::size_t>(blocks)),
                                                        ab.subspan(static_cast<std::size_t>(i * blocks), static_cast<std::size_t>(blocks)));
                ASSERT_EQ(std::bit_cast<std::uint32_t>(y.span<float>()[i * n + j]), std::bit_cast<std::uint32_t>(want))
                    << dtype_name(w.dtype()) << " m=" << m << " at (" << i << ", " << j << ")";
            }
        }
    }
}

// MXFP4 as a gpt-oss expert loads (2880 wide).
TEST(QuantMatmul, Mxfp4OutputsAreScalarDotBits) {
#if defined(FORGE_BACKEND_SIMD) && !defined(FORGE_INTERLEAVED_NIBBLE_GEMM)
    GTEST_SKIP() << "the simd dot kernel (no interleaved MXFP4 kernel in this build) rounds lane-wise";
#endif
    expect_scalar_dot_bits<kernels::BlockMXFP4>(random_mxfp4(40, 2880, 9, 118, 122));
}

// Q5_0 and Q5_1 as Gemma 3 1B's Q4_K_M and Q5_K_M files hold its 1152-wide matrices.
TEST(QuantMatmul, Q5OutputsAreScalarDotBits) {
#if defined(FORGE_BACKEND_SIMD) && !defined(FORGE_INTERLEAVED_NIBBLE_GEMM)
    GTEST_SKIP() << "the simd dot kernel (no interleaved Q5 kernel in this build) rounds lane-wise";
#endif
    expect_scalar_dot_bits<kernels::BlockQ5_0>(quant::quantize(random_tensor({40, 1152}, 12, 0.05f), DType::Q5_0));
    expect_scalar_dot_bits<kernels::BlockQ5_1>(quant::quantize(random_tensor({40, 1152}, 13, 0.05f), DType::Q5_1));
}

TEST(QuantMatmul, ResultsDoNotDependOnThreadCount) {
    const Tensor w = quant::quantize(random_tensor({300, 1024}, 5, 0.05f), DType::Q4_K);
    const Tensor x = random_tensor({3, 1024}, 6);
    ThreadPool::set_global_threads(1);
    const Tensor a = quant_matmul(x, w);
    ThreadPool::set_global_threads(4);
    const Tensor b = quant_matmul(x, w);
    ThreadPool::set_global_threads(ThreadPool::default_threads());
    EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()), 0);
}

TEST(QuantMatmul, DecodePathDoesNotAllocate) {
    for (const DType t : {DType::Q8_0, DType::Q4_0, DType::Q5_0, DType::Q5_1, DType::Q4_K, DType::Q6_K}) {
        const Tensor w = quant::quantize(random_tensor({512, 2048}, 7, 0.05f), t);
        const Tensor x = random_tensor({1, 2048}, 8);
        Tensor y = Tensor::empty({1, 512});
        QuantLinear linear(w, 1);
        linear.into(x, y);  // warm up: per-thread scratch grows once
        g_allocations = 0;
        g_counting = true;
        for (int i = 0; i < 5; ++i) linear.into(x, y);
        g_counting = false;
        EXPECT_EQ(g_allocations.load(), 0) << dtype_name(t);
    }
}

// linear_rows (a mixture of experts' pass: each product over its own rows of one x) gives every
// product the bits linear() gives it alone: products of one format share a pass, a change of
// format starts another, and a product of more rows than one register tile (prefill) takes the
// other task order.
TEST(QuantMatmul, LinearRowsGivesEachProductTheBitsOfLinearAlone) {
    const std::int64_t m = 16, k = 512;
    const Tensor x = random_tensor({m, k}, 10);
    std::vector<infer::Linear> layers;
    for (const DType t : {DType::Q4_K, DType::Q4_K, DType::Q4_K, DType::Q6_K, DType::Q8_0, DType::Q8_0, DType::Q5_0, DType::Q5_1, DType::F32}) {
        const Tensor w = quant::quantize(random_tensor({48, k}, 11 + static_cast<std::uint32_t>(layers.size()), 0.05f), t);
        layers.push_back({w, Tensor{}, infer::InterleavedWeights::from(w, false)});
    }
    // (first row, rows) of each product: single rows, a run, one past a register tile, all of x.
    const std::pair<std::int64_t, std::int64_t> rows[] = {{0, 1}, {3, 2}, {5, 11}, {15, 1}, {2, 9}, {0, 16}, {4, 12}, {6, 1}, {7, 3}};
    std::vector<Tensor> outputs;
    std::vector<infer::LinearRows> products;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        outputs.push_back(Tensor::empty({rows[i].second, 48}));
        products.push_back({&layers[i], rows[i].first, rows[i].second, outputs.back().span<float>()});
    }
    infer::ActivationScratch scratch(m, k, static_cast<std::int64_t>(products.size()));
    infer::linear_rows(products, x.span<float>(), m, scratch);
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const auto [first, count] = rows[i];
        Tensor alone = Tensor::empty({count, 48});
        infer::linear(layers[i], x.span<float>().subspan(static_cast<std::size_t>(first * k), static_cast<std::size_t>(count * k)), count,
                      alone.span<float>(), scratch);
        EXPECT_EQ(std::memcmp(alone.raw_data(), outputs[i].raw_data(), alone.nbytes()), 0) << "product " << i;
    }
    // Rows past x are refused.
    const infer::LinearRows past{&layers[0], 10, 7, outputs[0].span<float>()};
    EXPECT_THROW(infer::linear_rows(std::span(&past, 1), x.span<float>(), m, scratch), Error);
}

TEST(QuantMatmul, RejectsMismatchedShapes) {
    const Tensor w = quant::quantize(random_tensor({4, 64}, 9), DType::Q8_0);
    Tensor y = Tensor::empty({1, 4});
    QuantLinear linear(w, 1);
    EXPECT_THROW(linear.into(random_tensor({1, 32}, 1), y), Error);  // x too short for k = 64
    Tensor short_y = Tensor::empty({1, 3});
    EXPECT_THROW(linear.into(random_tensor({1, 64}, 1), short_y), Error);
}

}  // namespace
}  // namespace forge
