// Activation derivatives: the scalar spec against central differences of the scalar forward.
#include "kernels/unary_grad.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::uniform;

const UnaryOp kAll[] = {UnaryOp::Exp,     UnaryOp::Log,      UnaryOp::Sqrt,    UnaryOp::Rsqrt,
                        UnaryOp::Tanh,    UnaryOp::Sigmoid,  UnaryOp::Silu,    UnaryOp::GeluTanh,
                        UnaryOp::GeluErf, UnaryOp::Relu,     UnaryOp::Neg,     UnaryOp::Abs};

// Inputs away from the kinks of relu and abs and inside every op's domain (log, sqrt: x > 0).
std::vector<float> inputs(UnaryOp op, std::size_t n, std::uint32_t seed) {
    const bool positive = op == UnaryOp::Log || op == UnaryOp::Sqrt || op == UnaryOp::Rsqrt;
    auto x = uniform(n, positive ? 0.2f : -4.0f, 4.0f, seed);
    for (auto& v : x) {
        if (std::fabs(v) < 0.05f) v = 0.3f;
    }
    return x;
}

double forward(UnaryOp op, double x) {
    std::vector<float> in{static_cast<float>(x)}, out(1);
    scalar::unary(op, in, out);
    return out[0];
}

TEST(UnaryGrad, ScalarMatchesCentralDifferences) {
    for (UnaryOp op : kAll) {
        const auto x = inputs(op, 64, 7);
        const std::vector<float> dy(x.size(), 1.0f);
        std::vector<float> dx(x.size());
        scalar::unary_backward(op, x, dy, dx);
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double h = 1e-2 * std::max(1.0, std::fabs(double(x[i])));
            const double numeric = (forward(op, x[i] + h) - forward(op, x[i] - h)) / (2 * h);
            EXPECT_TRUE(close(dx[i], numeric, 2e-3, 2e-4)) << "op " << static_cast<int>(op) << " x=" << x[i];
        }
    }
}

}  // namespace
}  // namespace forge::kernels
