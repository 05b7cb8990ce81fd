#include "kernels/binary.h"

#include <cmath>
#include <limits>

namespace forge::kernels::scalar {
namespace {

// NaN-propagating maximum and minimum (std::fmax would drop the NaN).
float maximum(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
    return a > b ? a : b;
}

float minimum(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
    return a < b ? a : b;
}

// An operand with one element is broadcast: its stride along the row is 0.
template <typename F>
void zip(std::span<const float> a, std::span<const float> b, std::span<float> y, F f) {
    const std::size_t a_step = a.size() == 1 ? 0 : 1;
    const std::size_t b_step = b.size() == 1 ? 0 : 1;
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = f(a[i * a_step], b[i * b_step]);
}

}  // namespace

void binary(BinaryOp op, std::span<const float> a, std::span<const float> b, std::span<float> y) noexcept {
    switch (op) {
        case BinaryOp::Add: zip(a, b, y, [](float p, float q) { return p + q; }); return;
        case BinaryOp::Sub: zip(a, b, y, [](float p, float q) { return p - q; }); return;
        case BinaryOp::Mul: zip(a, b, y, [](float p, float q) { return p * q; }); return;
        case BinaryOp::Div: zip(a, b, y, [](float p, float q) { return p / q; }); return;
        case BinaryOp::Maximum: zip(a, b, y, maximum); return;
        case BinaryOp::Minimum: zip(a, b, y, minimum); return;
    }
}

}  // namespace forge::kernels::scalar
