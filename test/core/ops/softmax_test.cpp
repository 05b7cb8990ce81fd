#include "core/ops/softmax.h"

#include "test/core/ops/reference.h"

namespace forge {
namespace {

using testing::expect_close;
using testing::expect_error;
using testing::random_tensor;

// Naive log-softmax of each last-axis row with the same causal rule as the op.
std::vector<double> reference_log(const Tensor& x, double scale, bool causal) {
    const std::int64_t k = x.size(-1), q = causal ? x.size(-2) : 1;
    const std::vector<float> v = x.contiguous().to_vector();
    std::vector<double> out;
    for (std::int64_t r = 0; r < x.numel() / k; ++r) {
        const std::int64_t visible = causal ? std::clamp<std::int64_t>(r % q + (k - q) + 1, 0, k) : k;
        double m = -INFINITY, total = 0;
        for (std::int64_t j = 0; j < visible; ++j) m = std::max(m, scale * v[static_cast<std::size_t>(r * k + j)]);
        for (std::int64_t j = 0; j < visible; ++j) total += std::exp(scale * v[static_cast<std::size_t>(r * k + j)] - m);
        for (std::int64_t j = 0; j < k; ++j) {
            out.push_back(j < visible ? scale * v[static_cast<std::size_t>(r * k + j)] - m - std::log(total) : -INFINITY);
        }
    }
    return out;
}

std::vector<double> exp_of(std::vector<double> v) {
    for (double& e : v) e = std::exp(e);
    return v;
}

void expect_both(const Tensor& x, float scale, bool causal, const std::string& what) {
    const auto log_p = reference_log(x, scale, causal);
    expect_close(softmax(x, scale, causal), exp_of(log_p), 2e-6, 1e-9, what + " softmax");
    expect_close(log_softmax(x, scale, causal), log_p, 1e-6, 2e-6, what + " log_softmax");
}

TEST(SoftmaxOps, MatchesDoublePrecision) {
    expect_both(random_tensor({3, 4, 37}, -5, 5, 1), 1.0f, false, "plain");
    expect_both(random_tensor({2, 1000}, -5, 5, 2), 0.125f, false, "scaled");
    expect_both(random_tensor({70, 2000}, -5, 5, 3), 1.0f, false, "many rows");
}

TEST(SoftmaxOps, CausalMask) {
    // q == k: a lower-triangular mask.
    const Tensor square = Tensor::zeros({3, 3});
    const Tensor p = softmax(square, 1.0f, true);
    expect_close(p, {1, 0, 0, 0.5, 0.5, 0, 1 / 3.0, 1 / 3.0, 1 / 3.0}, 1e-6, 0, "square");
    expect_both(random_tensor({2, 2, 5, 9}, -3, 3, 4), 0.5f, true, "q < k (cached keys)");
    // q > k: the first queries see no key at all and get zeros (-inf).
    const Tensor tall = random_tensor({6, 4}, -3, 3, 5);
    expect_both(tall, 1.0f, true, "q > k");
    EXPECT_EQ(softmax(tall, 1.0f, true).select(0, 0).to_vector(), std::vector<float>(4, 0.0f));
}

TEST(SoftmaxOps, StridedInputAndRowsSumToOne) {
    const Tensor x = random_tensor({40, 30}, -4, 4, 6).transpose(0, 1);
    expect_both(x, 1.0f, false, "transposed");
    const std::vector<float> p = softmax(x).to_vector();
    for (std::size_t r = 0; r < 30; ++r) {
        double total = 0;
        for (std::size_t j = 0; j < 40; ++j) total += p[r * 40 + j];
        EXPECT_NEAR(total, 1.0, 1e-5);
    }
}

TEST(SoftmaxOps, ErrorsNameTheProblem) {
    expect_error([] { softmax(Tensor::zeros({5}), 1.0f, true); }, "softmax: a causal mask needs scores of shape [..., q, k]");
    expect_error([] { log_softmax(Tensor::zeros({5}, DType::F64)); }, "log_softmax: input must be f32, got f64");
    expect_error([] { softmax(Tensor::full(Shape(), 1.0f)); }, "softmax: needs at least one axis");
}

}  // namespace
}  // namespace forge
