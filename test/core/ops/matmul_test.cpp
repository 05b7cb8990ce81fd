// matmul op: against double-precision math, with transposed, batched, broadcast, strided and
// f16 operands; bad shapes; and bitwise-identical results for any thread count.
#include "core/ops/matmul.h"

#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <vector>

namespace forge {
namespace {

Tensor random_tensor(const Shape& shape, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(static_cast<std::size_t>(shape.product()));
    for (auto& v : values) v = uniform(rng);
    return Tensor::from(std::span<const float>(values), shape);
}

// The product of one batch entry, in double: a is [m, k] (or [k, m] when transposed).
double reference_element(const Tensor& a, const Tensor& b, bool ta, bool tb, std::int64_t i, std::int64_t j) {
    const std::int64_t k = ta ? a.size(0) : a.size(1);
    double sum = 0;
    for (std::int64_t p = 0; p < k; ++p) {
        sum += static_cast<double>(ta ? a.at({p, i}) : a.at({i, p})) * (tb ? b.at({j, p}) : b.at({p, j}));
    }
    return sum;
}

void expect_matches_reference(const Tensor& c, const Tensor& a, const Tensor& b, bool ta, bool tb) {
    const std::int64_t k = ta ? a.size(0) : a.size(1);
    for (std::int64_t i = 0; i < c.size(0); ++i) {
        for (std::int64_t j = 0; j < c.size(1); ++j) {
            ASSERT_NEAR(c.at({i, j}), reference_element(a, b, ta, tb, i, j), 1e-5 * static_cast<double>(k) + 1e-6)
                << i << "," << j;
        }
    }
}

TEST(MatmulOp, EveryTransposeCombination) {
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{1, 70, 300}, {5, 3, 7}, {40, 50, 60}, {200, 300, 20}}) {
        for (bool ta : {false, true}) {
            for (bool tb : {false, true}) {
                const Tensor a = random_tensor(ta ? Shape{k, m} : Shape{m, k}, 1);
                const Tensor b = random_tensor(tb ? Shape{n, k} : Shape{k, n}, 2);
                const Tensor c = matmul(a, b, ta, tb);
                ASSERT_EQ(c.shape(), (Shape{m, n}));
                SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb);
                expect_matches_reference(c, a, b, ta, tb);
            }
        }
    }
}

TEST(MatmulOp, HalfPrecisionWeights) {
    for (std::int64_t m : {1, 3, 30}) {
        const Tensor x = random_tensor({m, 130}, 3);
        const Tensor w = random_tensor({77, 130}, 4).to(DType::F16);
        const Tensor c = matmul(x, w, false, true);
        expect_matches_reference(c, x, w.to(DType::F32), false, true);
    }
}

TEST(MatmulOp, BatchesBroadcast) {
    const Tensor a = random_tensor({2, 1, 9, 11}, 5);
    const Tensor b = random_tensor({3, 11, 6}, 6);
    const Tensor c = matmul(a, b);
    ASSERT_EQ(c.shape(), (Shape{2, 3, 9, 6}));
    for (std::int64_t i = 0; i < 2; ++i) {
        for (std::int64_t j = 0; j < 3; ++j) {
            expect_matches_reference(c.select(0, i).select(0, j), a.select(0, i).select(0, 0), b.select(0, j), false, false);
        }
    }
}

TEST(MatmulOp, BatchedActivationsTimesSharedWeights) {
    const Tensor x = random_tensor({2, 3, 5, 16}, 7);
    const Tensor w = random_tensor({24, 16}, 8);
    const Tensor y = matmul(x, w, false, true);
    ASSERT_EQ(y.shape(), (Shape{2, 3, 5, 24}));
    for (std::int64_t i = 0; i < 2; ++i) {
        for (std::int64_t j = 0; j < 3; ++j) expect_matches_reference(y.select(0, i).select(0, j), x.select(0, i).select(0, j), w, false, true);
    }
}

TEST(MatmulOp, NonContiguousOperands) {
    const Tensor big_a = random_tensor({30, 50}, 9);
    const Tensor big_b = random_tensor({60, 40}, 10);
    const Tensor a = big_a.narrow(0, 3, 20).narrow(1, 5, 33);                  // row stride 50
    const Tensor b = big_b.transpose(0, 1).narrow(0, 2, 33).narrow(1, 4, 17);  // no unit stride pattern of [k, n]
    expect_matches_reference(matmul(a, b), a, b, false, false);
    const Tensor every_other = random_tensor({20, 66}, 11);
    const Tensor strided = every_other.reshape({20, 33, 2}).select(2, 1);  // column stride 2
    expect_matches_reference(matmul(strided, b), strided, b, false, false);
    expect_matches_reference(matmul(strided.narrow(0, 0, 1), b), strided.narrow(0, 0, 1), b, false, false);
}

TEST(MatmulOp, BadShapesAreErrors) {
    const Tensor a = random_tensor({4, 5}, 1);
    EXPECT_THROW(matmul(a, random_tensor({6, 3}, 2)), Error);
    EXPECT_THROW(matmul(a, random_tensor({5}, 2)), Error);
    EXPECT_THROW(matmul(random_tensor({2, 4, 5}, 3), random_tensor({3, 5, 2}, 4)), Error);
    EXPECT_THROW(matmul(a, random_tensor({5, 3}, 2).to(DType::F16)), Error);  // f16 only as transposed weights
    EXPECT_THROW(matmul(a.to(DType::F16), random_tensor({5, 3}, 2)), Error);
    try {
        matmul(a, random_tensor({6, 3}, 2));
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("inner sizes differ"), std::string::npos) << e.what();
    }
}

TEST(MatmulOp, EmptyAndZeroDepth) {
    EXPECT_EQ(matmul(random_tensor({0, 3}, 1), random_tensor({3, 4}, 2)).shape(), (Shape{0, 4}));
    const Tensor zero_depth = matmul(Tensor::zeros({2, 0}), Tensor::zeros({0, 3}));
    for (float v : zero_depth.to_vector()) EXPECT_EQ(v, 0.0f);
}

std::vector<std::uint32_t> bits(const Tensor& t) {
    std::vector<std::uint32_t> out;
    for (float v : t.to_vector()) out.push_back(std::bit_cast<std::uint32_t>(v));
    return out;
}

TEST(MatmulOp, SameBitsForAnyThreadCount) {
    const Tensor a = random_tensor({300, 520}, 12);
    const Tensor b = random_tensor({600, 520}, 13);
    const Tensor x = random_tensor({1, 520}, 14);
    const Tensor w16 = b.to(DType::F16);
    std::vector<std::vector<std::uint32_t>> results;
    for (int threads : {1, 2, 3}) {
        ThreadPool::set_global_threads(threads);
        auto run = bits(matmul(a, b, false, true));
        for (auto v : bits(matmul(x, b, false, true))) run.push_back(v);
        for (auto v : bits(matmul(a, w16, false, true))) run.push_back(v);
        for (auto v : bits(matmul(b, a.narrow(0, 0, 70), false, true))) run.push_back(v);
        results.push_back(std::move(run));
    }
    ThreadPool::set_global_threads(ThreadPool::default_threads());
    EXPECT_EQ(results[0], results[1]);
    EXPECT_EQ(results[0], results[2]);
}

}  // namespace
}  // namespace forge
