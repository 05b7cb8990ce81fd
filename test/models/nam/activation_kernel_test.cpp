// NAM's activations in the unary kernels (kernels/unary.h) and the blend kernel: scalar against
// plain double math, simd against scalar.
#include "kernels/backend.h"
#include "kernels/binary.h"
#include "kernels/blend.h"
#include "kernels/unary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace forge::kernels {
namespace {

// The functions a .nam file can name.
const UnaryOp kAll[] = {UnaryOp::Identity, UnaryOp::Tanh,      UnaryOp::FastTanh,      UnaryOp::Hardtanh,
                        UnaryOp::Relu,     UnaryOp::LeakyRelu, UnaryOp::Sigmoid,       UnaryOp::Silu,
                        UnaryOp::Hardswish, UnaryOp::LeakyHardtanh, UnaryOp::Softsign};

std::vector<float> inputs(std::size_t n) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-8, 8);
    std::vector<float> x(n);
    for (auto& v : x) v = d(rng);
    return x;
}

double reference(UnaryOp op, const UnaryParams& p, double x) {
    const double s = 1 / (1 + std::exp(-x));
    switch (op) {
        case UnaryOp::Identity: return x;
        case UnaryOp::Tanh: return std::tanh(x);
        case UnaryOp::FastTanh: return std::tanh(x);  // an approximation: checked loosely
        case UnaryOp::Hardtanh: return std::clamp(x, -1.0, 1.0);
        case UnaryOp::Relu: return std::max(x, 0.0);
        case UnaryOp::LeakyRelu: return x > 0 ? x : p.negative_slope * x;
        case UnaryOp::Sigmoid: return s;
        case UnaryOp::Silu: return x * s;
        case UnaryOp::Hardswish: return x * std::clamp(x + 3, 0.0, 6.0) / 6;
        case UnaryOp::LeakyHardtanh:
            return x < p.min_val ? (x - p.min_val) * p.min_slope + p.min_val
                                 : (x > p.max_val ? (x - p.max_val) * p.max_slope + p.max_val : x);
        case UnaryOp::Softsign: return x / (1 + std::fabs(x));
        default: break;  // not in kAll: test/kernels/unary_test.cpp checks the rest
    }
    return NAN;
}

TEST(NamActivationKernel, ScalarMatchesMath) {
    UnaryParams p;
    p.negative_slope = 0.2f;
    p.min_val = -0.5f;
    p.max_val = 0.9f;
    const auto x = inputs(1000);
    for (UnaryOp op : kAll) {
        auto y = x;
        scalar::unary(op, y, y, p);
        const double tolerance = op == UnaryOp::FastTanh ? 1e-3 : 2e-6;
        for (std::size_t i = 0; i < x.size(); ++i)
            ASSERT_NEAR(y[i], reference(op, p, x[i]), tolerance * (1 + std::fabs(x[i]))) << static_cast<int>(op);
    }
}

// Exact tanh (the default) within a few float ulps of tanh everywhere, tiny arguments (where
// relative accuracy needs care) and saturation included; the simd backend has its own tanh.
TEST(NamActivationKernel, ExactTanhWithinFewUlps) {
    std::vector<float> x;
    for (float v = 1e-30f; v < 1.0f; v *= 1.01f) x.insert(x.end(), {v, -v});
    for (int i = -20000; i <= 20000; ++i) x.push_back(static_cast<float>(i) * 6e-4f);
    x.insert(x.end(), {0.0f, -0.0f, 0.34657359f, 0.34657362f, 9.0f, -9.5f, 40.0f, -1e30f, INFINITY, -INFINITY});
    auto y = x;
    active::unary(UnaryOp::Tanh, y, y);
    double worst = 0;  // in units of float epsilon relative to |tanh x|
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double want = std::tanh(static_cast<double>(x[i]));
        const double error = std::fabs(y[i] - want) / (std::fabs(want) * 0x1p-23 + 1e-300);
        worst = std::max(worst, error);
        ASSERT_LE(error, 2.0) << "tanh(" << x[i] << ") = " << y[i] << ", want " << want;
        ASSERT_EQ(std::signbit(y[i]), std::signbit(x[i])) << x[i];
    }
    RecordProperty("worst_error_eps", std::to_string(worst));
}

#if defined(FORGE_BACKEND_SIMD)  // simd against scalar: only where the simd kernels are built
TEST(NamActivationKernel, SimdMatchesScalar) {
    UnaryParams p;
    for (std::size_t n : {0u, 1u, 7u, 16u, 17u, 63u, 1000u}) {
        const auto x = inputs(n);
        for (UnaryOp op : kAll) {
            auto a = x, b = x;
            scalar::unary(op, a, a, p);
            active::unary(op, b, b, p);
            for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(a[i], b[i], 1e-6 * (1 + std::fabs(a[i])));
        }
        auto out_s = x, out_v = x;
        const auto g = inputs(n + 1);
        scalar::binary(BinaryOp::Mul, out_s, std::span(g).first(n), out_s);
        active::binary(BinaryOp::Mul, out_v, std::span(g).first(n), out_v);
        for (std::size_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(out_s[i], out_v[i]);
        scalar::blend(out_s, std::span(g).first(n), x);
        active::blend(out_v, std::span(g).first(n), x);
        for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(out_s[i], out_v[i], 1e-5 * (1 + std::fabs(out_s[i])));
    }
}
#endif

}  // namespace
}  // namespace forge::kernels
