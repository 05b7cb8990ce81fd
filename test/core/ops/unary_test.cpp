#include "core/ops/unary.h"

#include "test/core/ops/reference.h"

#include <functional>

namespace forge {
namespace {

using testing::expect_close;
using testing::expect_error;
using testing::random_tensor;

std::vector<double> reference(const Tensor& x, const std::function<double(double)>& f) {
    std::vector<double> out;
    for (float v : x.to_vector()) out.push_back(f(v));
    return out;
}

TEST(UnaryOps, EveryOpMatchesDoublePrecision) {
    const Tensor x = random_tensor({3, 50, 7}, -4, 4, 1);
    const Tensor positive = random_tensor({3, 50, 7}, 0.01f, 9, 2);
    const double s = std::sqrt(2.0 / M_PI);
    expect_close(exp(x), reference(x, [](double v) { return std::exp(v); }), 1e-6, 0, "exp");
    expect_close(log(positive), reference(positive, [](double v) { return std::log(v); }), 1e-6, 1e-7, "log");
    expect_close(sqrt(positive), reference(positive, [](double v) { return std::sqrt(v); }), 1e-6, 0, "sqrt");
    expect_close(rsqrt(positive), reference(positive, [](double v) { return 1 / std::sqrt(v); }), 1e-6, 0, "rsqrt");
    expect_close(tanh(x), reference(x, [](double v) { return std::tanh(v); }), 1e-6, 1e-7, "tanh");
    expect_close(sigmoid(x), reference(x, [](double v) { return 1 / (1 + std::exp(-v)); }), 1e-6, 0, "sigmoid");
    expect_close(silu(x), reference(x, [](double v) { return v / (1 + std::exp(-v)); }), 1e-6, 1e-7, "silu");
    expect_close(gelu_tanh(x), reference(x, [&](double v) { return 0.5 * v * (1 + std::tanh(s * (v + 0.044715 * v * v * v))); }),
                 1e-5, 1e-7, "gelu_tanh");
    expect_close(gelu_erf(x), reference(x, [](double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); }), 1e-5,
                 1e-7, "gelu_erf");
    expect_close(relu(x), reference(x, [](double v) { return v < 0 ? 0 : v; }), 0, 0, "relu");
    expect_close(neg(x), reference(x, [](double v) { return -v; }), 0, 0, "neg");
    expect_close(-x, reference(x, [](double v) { return -v; }), 0, 0, "operator-");
    expect_close(abs(x), reference(x, [](double v) { return std::fabs(v); }), 0, 0, "abs");
}

TEST(UnaryOps, KeepsShapeAndAcceptsStridedViews) {
    const Tensor x = random_tensor({6, 5}, -2, 2, 3);
    const Tensor view = x.transpose(0, 1).narrow(0, 1, 3);  // [3, 6], not contiguous
    ASSERT_FALSE(view.is_contiguous());
    const Tensor y = exp(view);
    EXPECT_EQ(y.shape(), view.shape());
    EXPECT_TRUE(y.is_contiguous());
    expect_close(y, reference(view, [](double v) { return std::exp(v); }), 1e-6, 0);
}

TEST(UnaryOps, LargeTensorSplitAcrossThreads) {
    const Tensor x = random_tensor({300001}, -3, 3, 4);
    expect_close(tanh(x), reference(x, [](double v) { return std::tanh(v); }), 1e-6, 1e-7);
}

TEST(UnaryOps, RankZeroAndEmpty) {
    EXPECT_FLOAT_EQ(exp(Tensor::full(Shape(), 1.0f)).item(), std::exp(1.0f));
    EXPECT_EQ(relu(Tensor::empty({0, 4})).shape(), Shape({0, 4}));
}

TEST(UnaryOps, RejectsOtherDtypesAndUndefined) {
    expect_error([] { exp(Tensor::zeros({3}, DType::I32)); }, "exp: input must be f32, got i32");
    expect_error([] { silu(Tensor()); }, "silu: input is an undefined tensor");
}

}  // namespace
}  // namespace forge
