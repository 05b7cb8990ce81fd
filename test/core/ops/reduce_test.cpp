#include "core/ops/reduce.h"

#include "test/core/ops/reference.h"

#include <bit>
#include <limits>

namespace forge {
namespace {

using testing::expect_close;
using testing::expect_error;
using testing::random_tensor;
using testing::ScopedThreads;

struct Reference {
    std::vector<double> sum, mean, max, logsumexp;
    std::vector<float> argmax;
};

// Naive reductions of x along `axis`, in double.
Reference reference(const Tensor& x, int axis) {
    std::int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.size(d);
    for (int d = axis + 1; d < x.rank(); ++d) inner *= x.size(d);
    const std::int64_t n = x.size(axis);
    const std::vector<float> v = x.to_vector();
    Reference r;
    for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t i = 0; i < inner; ++i) {
            auto at = [&](std::int64_t k) { return static_cast<double>(v[static_cast<std::size_t>((o * n + k) * inner + i)]); };
            double sum = 0, best = -INFINITY;
            std::int64_t best_k = 0;
            for (std::int64_t k = 0; k < n; ++k) {
                sum += at(k);
                if (at(k) > best) best = at(k), best_k = k;
            }
            double exps = 0;
            for (std::int64_t k = 0; k < n; ++k) exps += std::exp(at(k) - best);
            r.sum.push_back(sum);
            r.mean.push_back(sum / static_cast<double>(n));
            r.max.push_back(best);
            r.logsumexp.push_back(best + std::log(exps));
            r.argmax.push_back(static_cast<float>(best_k));
        }
    }
    return r;
}

void expect_matches_reference(const Tensor& x, int axis, const std::string& what) {
    const Reference r = reference(x.contiguous(), axis);
    const double n = static_cast<double>(x.size(axis));
    // A float sum's rounding grows with n (values are O(1) here).
    expect_close(sum(x, axis), r.sum, 1e-6, 1e-6 * n, what + " sum");
    expect_close(mean(x, axis), r.mean, 1e-6, 1e-6, what + " mean");
    expect_close(max(x, axis), r.max, 0, 0, what + " max");
    expect_close(logsumexp(x, axis), r.logsumexp, 1e-6, 1e-6 + 1e-8 * n, what + " logsumexp");
    const Tensor index = argmax(x, axis);
    EXPECT_EQ(index.dtype(), DType::I64);
    EXPECT_EQ(index.to_vector(), r.argmax) << what << " argmax";
}

TEST(ReduceOps, EveryAxisMatchesDoublePrecision) {
    const Tensor x = random_tensor({4, 5, 67}, -3, 3, 1);
    for (int axis = 0; axis < 3; ++axis) expect_matches_reference(x, axis, "axis " + std::to_string(axis));
    expect_matches_reference(random_tensor({2, 3000, 3}, -3, 3, 2), 1, "wide middle axis");
    expect_matches_reference(random_tensor({3, 1500}, -3, 3, 7), 1, "many columns");
    expect_matches_reference(random_tensor({2500, 3}, -3, 3, 8), 0, "many rows");
}

TEST(ReduceOps, ShapesKeepdimAndNegativeAxes) {
    const Tensor x = random_tensor({2, 3, 4}, -1, 1, 3);
    EXPECT_EQ(sum(x, 1).shape(), Shape({2, 4}));
    EXPECT_EQ(sum(x, 1, true).shape(), Shape({2, 1, 4}));
    EXPECT_EQ(argmax(x, -1).shape(), Shape({2, 3}));
    EXPECT_EQ(mean(x, -1).to_vector(), mean(x, 2).to_vector());
    EXPECT_EQ(sum(Tensor::arange(5), 0).shape(), Shape());
    EXPECT_FLOAT_EQ(sum(Tensor::arange(5), 0).item(), 10.0f);
}

TEST(ReduceOps, StridedInput) {
    const Tensor x = random_tensor({6, 7}, -2, 2, 4).transpose(0, 1);  // [7, 6], not contiguous
    expect_matches_reference(x, 0, "transposed axis 0");
    expect_matches_reference(x, 1, "transposed axis 1");
}

TEST(ReduceOps, LongAxesAreChunkedAndStillCorrect) {
    expect_matches_reference(random_tensor({100003}, -1, 1, 5), 0, "long row");
    expect_matches_reference(random_tensor({70001, 3}, -1, 1, 6), 0, "long column");
    // The maximum appears twice, in different chunks: the first one wins.
    std::vector<float> values(100000, 0.0f);
    values[40000] = values[90000] = 5.0f;
    const Tensor ties = Tensor::from(std::span<const float>(values), {100000});
    EXPECT_EQ(argmax(ties, 0).to_vector(), std::vector<float>{40000});
}

TEST(ReduceOps, BitwiseIdenticalForAnyThreadCount) {
    const Tensor x = random_tensor({1 << 20}, -1, 1, 7);
    const Tensor rows = random_tensor({64, 20000}, -1, 1, 8);
    const Tensor columns = random_tensor({40000, 40}, -1, 1, 9);
    auto results = [&] {
        std::vector<std::uint32_t> bits;
        for (const Tensor& t : {sum(x, 0), mean(x, 0), logsumexp(x, 0), sum(rows, 1), logsumexp(rows, 1),
                                sum(columns, 0), mean(columns, 0)}) {
            for (float v : t.to_vector()) bits.push_back(std::bit_cast<std::uint32_t>(v));
        }
        return bits;
    };
    std::vector<std::uint32_t> one;
    {
        ScopedThreads threads(1);
        one = results();
    }
    for (int count : {2, 3}) {
        ScopedThreads threads(count);
        EXPECT_EQ(results(), one) << count << " threads";
    }
}

TEST(ReduceOps, NaNPropagatesThroughMaxAndWinsArgmax) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Tensor x = Tensor::from({1, nan, 3, 2}, {4});
    EXPECT_TRUE(std::isnan(max(x, 0).item()));
    EXPECT_EQ(argmax(x, 0).to_vector(), std::vector<float>{1});
}

TEST(ReduceOps, ErrorsNameTheProblem) {
    expect_error([] { sum(Tensor::zeros({2, 3}), 2); }, "sum: axis 2 is out of range for shape [2, 3]");
    expect_error([] { mean(Tensor::full(Shape(), 1.0f), 0); }, "mean: cannot reduce a rank-0 tensor");
    expect_error([] { max(Tensor::zeros({2, 0}), 1); }, "max: axis 1 of shape [2, 0] is empty");
    expect_error([] { argmax(Tensor::zeros({2}, DType::I64), 0); }, "argmax: input must be f32, got i64");
}

}  // namespace
}  // namespace forge
