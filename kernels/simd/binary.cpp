#include "kernels/binary.h"

#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {
namespace {

// NaN-propagating, like the scalar kernels: the hardware max/min return their second
// operand when either is NaN, so NaN lanes are patched in afterwards (a + b is NaN there).
Batch maximum(Batch a, Batch b) {
    return xsimd::select(xsimd::isnan(a) || xsimd::isnan(b), a + b, xsimd::select(a > b, a, b));
}

Batch minimum(Batch a, Batch b) {
    return xsimd::select(xsimd::isnan(a) || xsimd::isnan(b), a + b, xsimd::select(a < b, a, b));
}

// One operand as a source of batches: either a contiguous row or a scalar broadcast to all
// lanes (loaded once, outside the loop).
class Operand {
public:
    explicit Operand(std::span<const float> values)
        : data_(values.data()), broadcast_(values.size() == 1), scalar_(values.empty() ? 0.0f : values[0]) {}

    Batch load(std::size_t i) const { return broadcast_ ? scalar_ : Batch::load_unaligned(data_ + i); }
    Batch load_tail(std::size_t i, std::size_t count) const {
        return broadcast_ ? scalar_ : simd::load_tail(data_ + i, count, 1.0f);
    }

private:
    const float* data_;
    bool broadcast_;
    Batch scalar_;
};

template <typename F>
void zip(std::span<const float> a_values, std::span<const float> b_values, std::span<float> y, F f) {
    const Operand a(a_values);
    const Operand b(b_values);
    const std::size_t n = y.size();
    std::size_t i = 0;
    // Two batches per step keep two independent loads in flight on wide vectors.
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
        const Batch first = f(a.load(i), b.load(i));
        const Batch second = f(a.load(i + kLanes), b.load(i + kLanes));
        first.store_unaligned(y.data() + i);
        second.store_unaligned(y.data() + i + kLanes);
    }
    for (; i + kLanes <= n; i += kLanes) f(a.load(i), b.load(i)).store_unaligned(y.data() + i);
    if (i < n) store_tail(f(a.load_tail(i, n - i), b.load_tail(i, n - i)), y.data() + i, n - i);
}

}  // namespace

void binary(BinaryOp op, std::span<const float> a, std::span<const float> b, std::span<float> y) noexcept {
    switch (op) {
        case BinaryOp::Add: zip(a, b, y, [](Batch p, Batch q) { return p + q; }); return;
        case BinaryOp::Sub: zip(a, b, y, [](Batch p, Batch q) { return p - q; }); return;
        case BinaryOp::Mul: zip(a, b, y, [](Batch p, Batch q) { return p * q; }); return;
        case BinaryOp::Div: zip(a, b, y, [](Batch p, Batch q) { return p / q; }); return;
        case BinaryOp::Maximum: zip(a, b, y, maximum); return;
        case BinaryOp::Minimum: zip(a, b, y, minimum); return;
    }
}

}  // namespace forge::kernels::simd
