// gradcheck of every differentiable element-wise op, with broadcasting.
#include "test/core/autograd/test_util.h"

namespace forge::ag {
namespace {

using testing::param;
using testing::param_away_from_zero;
using testing::passes_gradcheck;

using Unary = Tensor (*)(const Tensor&);

void check_unary(Unary op, Tensor x) {
    EXPECT_TRUE(passes_gradcheck([op](std::span<const Tensor> in) { return op(in[0]); }, {x}));
}

TEST(GradcheckPointwise, Exp) { check_unary(ag::exp, param({3, 4}, 1)); }
TEST(GradcheckPointwise, Log) { check_unary(ag::log, param({3, 4}, 2, 0.5f, 2.0f)); }
TEST(GradcheckPointwise, Sqrt) { check_unary(ag::sqrt, param({3, 4}, 3, 0.5f, 2.0f)); }
TEST(GradcheckPointwise, Rsqrt) { check_unary(ag::rsqrt, param({3, 4}, 4, 0.5f, 2.0f)); }
TEST(GradcheckPointwise, Tanh) { check_unary(ag::tanh, param({3, 4}, 5, -2.0f, 2.0f)); }
TEST(GradcheckPointwise, Sigmoid) { check_unary(ag::sigmoid, param({3, 4}, 6, -3.0f, 3.0f)); }
TEST(GradcheckPointwise, Silu) { check_unary(ag::silu, param({3, 4}, 7, -3.0f, 3.0f)); }
TEST(GradcheckPointwise, GeluTanh) { check_unary(ag::gelu_tanh, param({3, 4}, 8, -3.0f, 3.0f)); }
TEST(GradcheckPointwise, GeluErf) { check_unary(ag::gelu_erf, param({3, 4}, 9, -3.0f, 3.0f)); }
TEST(GradcheckPointwise, Relu) { check_unary(ag::relu, param_away_from_zero({3, 4}, 10)); }
TEST(GradcheckPointwise, Neg) { check_unary(ag::neg, param({3, 4}, 11)); }
TEST(GradcheckPointwise, Abs) { check_unary(ag::abs, param_away_from_zero({3, 4}, 12)); }

using Binary = Tensor (*)(const Tensor&, const Tensor&);

// Same shapes, then both operands broadcast: [2,3,1] with [4] gives [2,3,4].
void check_binary(Binary op, float low = -1.0f, float high = 1.0f) {
    auto f = [op](std::span<const Tensor> in) { return op(in[0], in[1]); };
    EXPECT_TRUE(passes_gradcheck(f, {param({2, 3}, 20, low, high), param({2, 3}, 21, low, high)}));
    EXPECT_TRUE(passes_gradcheck(f, {param({2, 3, 1}, 22, low, high), param({4}, 23, low, high)}));
}

TEST(GradcheckPointwise, Add) { check_binary(ag::add); }
TEST(GradcheckPointwise, Sub) { check_binary(ag::sub); }
TEST(GradcheckPointwise, Mul) { check_binary(ag::mul); }
TEST(GradcheckPointwise, Div) { check_binary(ag::div, 0.5f, 2.0f); }

TEST(GradcheckPointwise, MaximumAndMinimum) {
    // Operands from disjoint interleaved grids, so no two values are within eps of a tie.
    const Tensor a = requires_grad(Tensor::from({0.1f, 0.9f, -0.5f, 0.3f, -0.8f, 0.6f}, {2, 3}));
    const Tensor b = requires_grad(Tensor::from({0.4f, 0.2f, -0.1f, 0.7f, -0.3f, 0.0f}, {2, 3}));
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::maximum(in[0], in[1]); }, {a, b}));
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::minimum(in[0], in[1]); }, {a, b}));
}

TEST(GradcheckPointwise, Scalars) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::add(in[0], 2.5f); }, {param({5}, 30)}));
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::mul(in[0], -1.5f); }, {param({5}, 31)}));
}

}  // namespace
}  // namespace forge::ag
