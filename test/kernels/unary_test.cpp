// The scalar element-wise kernels against plain double-precision math.
#include "kernels/unary.h"

#include "test/kernels/test_data.h"

#include <functional>

namespace forge::kernels {
namespace {

using testing::close;
using testing::kLengths;
using testing::uniform;

struct Case {
    UnaryOp op;
    const char* name;
    float low, high;                   // input range
    std::function<double(double)> f;  // the definition, in double
    bool ill_conditioned = false;      // far tails amplify the rounding of internal arguments
};

// 0.5 x (1 + tanh(u)), written as x / (1 + exp(-2u)) so that double does not cancel either.
double gelu_tanh(double x) {
    const double u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
    return x / (1.0 + std::exp(-2.0 * u));
}
double gelu_erf(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {UnaryOp::Exp, "exp", -80, 80, [](double x) { return std::exp(x); }},
        {UnaryOp::Log, "log", 1e-4f, 1e4f, [](double x) { return std::log(x); }},
        {UnaryOp::Sqrt, "sqrt", 0, 1e6f, [](double x) { return std::sqrt(x); }},
        {UnaryOp::Rsqrt, "rsqrt", 1e-6f, 1e6f, [](double x) { return 1 / std::sqrt(x); }},
        {UnaryOp::Tanh, "tanh", -10, 10, [](double x) { return std::tanh(x); }},
        {UnaryOp::Sigmoid, "sigmoid", -40, 40, [](double x) { return 1 / (1 + std::exp(-x)); }},
        {UnaryOp::Silu, "silu", -40, 40, [](double x) { return x / (1 + std::exp(-x)); }},
        {UnaryOp::GeluTanh, "gelu_tanh", -8, 8, gelu_tanh, true},
        {UnaryOp::GeluErf, "gelu_erf", -8, 8, gelu_erf, true},
        {UnaryOp::Relu, "relu", -10, 10, [](double x) { return x < 0 ? 0.0 : x; }},
        {UnaryOp::Neg, "neg", -10, 10, [](double x) { return -x; }},
        {UnaryOp::Abs, "abs", -10, 10, [](double x) { return std::fabs(x); }},
    };
    return all;
}

// How much f magnifies a relative change of x: |x f'(x) / f(x)|, by central difference.
double condition(const std::function<double(double)>& f, double x) {
    const double h = 1e-6 * std::max(std::fabs(x), 1e-3);
    const double derivative = (f(x + h) - f(x - h)) / (2 * h);
    return std::fabs(x * derivative / f(x));
}

TEST(UnaryScalar, MatchesDoublePrecisionDefinition) {
    for (const Case& c : cases()) {
        for (std::size_t n : kLengths) {
            const auto x = uniform(n, c.low, c.high, static_cast<std::uint32_t>(n) + 7);
            std::vector<float> y(n);
            scalar::unary(c.op, x, y);
            for (std::size_t i = 0; i < n; ++i) {
                // A float kernel rounds its internal arguments; where the function is
                // ill-conditioned that rounding is magnified by the condition number.
                const double rel = c.ill_conditioned ? 1e-6 * (1 + condition(c.f, x[i])) : 1e-6;
                ASSERT_TRUE(close(y[i], c.f(x[i]), rel, 1e-30)) << c.name << "(" << x[i] << ")";
            }
        }
    }
}

TEST(UnaryScalar, GeluTailsKeepRelativeAccuracy) {
    // The naive 0.5 x (1 + tanh(...)) cancels to 0 here; the kernel must not.
    for (float x : {-6.0f, -9.0f, -12.0f}) {
        float y = 0;
        scalar::unary(UnaryOp::GeluErf, std::span(&x, 1), std::span(&y, 1));
        EXPECT_LT(y, 0.0f) << x;
        EXPECT_TRUE(close(y, gelu_erf(x), 1e-6 * (1 + condition(gelu_erf, x)))) << x;
    }
    float x = -6.0f, y = 0;
    scalar::unary(UnaryOp::GeluTanh, std::span(&x, 1), std::span(&y, 1));
    EXPECT_LT(y, 0.0f);
}

TEST(UnaryScalar, SpecialValues) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto apply = [](UnaryOp op, float x) {
        float y = 0;
        scalar::unary(op, std::span(&x, 1), std::span(&y, 1));
        return y;
    };
    EXPECT_EQ(apply(UnaryOp::Exp, -inf), 0.0f);
    EXPECT_EQ(apply(UnaryOp::Exp, 100.0f), inf);
    EXPECT_EQ(apply(UnaryOp::Log, 0.0f), -inf);
    EXPECT_TRUE(std::isnan(apply(UnaryOp::Log, -1.0f)));
    EXPECT_EQ(apply(UnaryOp::Sigmoid, -inf), 0.0f);
    EXPECT_EQ(apply(UnaryOp::Sigmoid, inf), 1.0f);
    EXPECT_EQ(apply(UnaryOp::GeluTanh, inf), inf);
    EXPECT_TRUE(std::isnan(apply(UnaryOp::Relu, nan)));
    EXPECT_EQ(apply(UnaryOp::Rsqrt, 0.0f), inf);
}

TEST(UnaryScalar, InPlace) {
    auto x = uniform(100, -3, 3, 1);
    const auto original = x;
    scalar::unary(UnaryOp::Tanh, x, x);
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], std::tanh(original[i]));
}

}  // namespace
}  // namespace forge::kernels
