#include "core/ops/binary.h"

#include "core/ops/check_f32.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"

#include <vector>

namespace forge {
namespace {

constexpr std::int64_t kElementGrain = 1 << 16;

std::string_view name(BinaryOp op) {
    switch (op) {
        case BinaryOp::Add: return "add";
        case BinaryOp::Sub: return "sub";
        case BinaryOp::Mul: return "mul";
        case BinaryOp::Div: return "div";
        case BinaryOp::Maximum: return "maximum";
        case BinaryOp::Minimum: return "minimum";
    }
    return "binary";
}

// One axis of the iteration space: its size and each operand's stride along it (0 where
// the operand is broadcast).
struct Axis {
    std::int64_t size;
    std::int64_t a_stride;
    std::int64_t b_stride;
};

// The broadcast iteration space with size-1 axes dropped and neighbouring axes merged
// wherever both operands step through them as one (e.g. two contiguous tensors of the same
// shape become a single row). The last axis is the row the kernel sees.
std::vector<Axis> merged_axes(const Tensor& a, const Tensor& b) {
    std::vector<Axis> axes;
    for (int d = 0; d < a.rank(); ++d) {
        if (a.size(d) == 1) continue;
        const Axis next{a.size(d), a.stride(d), b.stride(d)};
        if (!axes.empty()) {
            Axis& last = axes.back();
            if (last.a_stride == next.a_stride * next.size && last.b_stride == next.b_stride * next.size) {
                last = {last.size * next.size, next.a_stride, next.b_stride};
                continue;
            }
        }
        axes.push_back(next);
    }
    if (axes.empty()) axes.push_back({1, 0, 0});
    return axes;
}

bool is_row_stride(std::int64_t stride) { return stride == 0 || stride == 1; }

// The kernel walks a row with stride 1 (or 0, a broadcast scalar). An operand that is some
// other strided view is copied to contiguous memory first; its broadcast axes stay free.
void make_rows_kernel_friendly(Tensor& a, Tensor& b, const Tensor& a_in, const Tensor& b_in, const Shape& shape) {
    const Axis row = merged_axes(a, b).back();
    if (!is_row_stride(row.a_stride)) a = a_in.contiguous().broadcast_to(shape);
    if (!is_row_stride(row.b_stride)) b = b_in.contiguous().broadcast_to(shape);
}

Tensor scalar_tensor(float value) { return Tensor::full(Shape(), value); }

}  // namespace

Tensor binary(BinaryOp op, const Tensor& a_in, const Tensor& b_in) {
    check_f32(a_in, name(op), "the first operand");
    check_f32(b_in, name(op), "the second operand");
    const Shape shape = broadcast_shapes(a_in.shape(), b_in.shape());
    Tensor out = Tensor::empty(shape);
    if (out.numel() == 0) return out;

    Tensor a = a_in.broadcast_to(shape);
    Tensor b = b_in.broadcast_to(shape);
    make_rows_kernel_friendly(a, b, a_in, b_in, shape);
    const std::vector<Axis> axes = merged_axes(a, b);
    const Axis row = axes.back();
    const std::int64_t rows = out.numel() / row.size;
    const float* a_data = a.data<float>();
    const float* b_data = b.data<float>();
    float* y = out.data<float>();
    auto operand = [](const float* base, std::int64_t stride, std::int64_t offset, std::int64_t count) {
        return std::span<const float>(base + offset, stride == 0 ? 1 : static_cast<std::size_t>(count));
    };

    if (rows == 1) {
        // One long row: split it.
        ThreadPool::global().parallel_for(row.size, kElementGrain, [&](std::int64_t begin, std::int64_t end) {
            kernels::active::binary(op, operand(a_data, row.a_stride, begin * row.a_stride, end - begin),
                                    operand(b_data, row.b_stride, begin * row.b_stride, end - begin),
                                    {y + begin, static_cast<std::size_t>(end - begin)});
        });
        return out;
    }
    // Many rows: each chunk of rows finds its operands' offsets from the outer axes.
    const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / row.size);
    ThreadPool::global().parallel_for(rows, grain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            std::int64_t a_offset = 0, b_offset = 0, rest = r;
            for (std::size_t d = axes.size() - 1; d-- > 0;) {
                const std::int64_t index = rest % axes[d].size;
                rest /= axes[d].size;
                a_offset += index * axes[d].a_stride;
                b_offset += index * axes[d].b_stride;
            }
            kernels::active::binary(op, operand(a_data, row.a_stride, a_offset, row.size),
                                    operand(b_data, row.b_stride, b_offset, row.size),
                                    {y + r * row.size, static_cast<std::size_t>(row.size)});
        }
    });
    return out;
}

Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Div, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Maximum, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Minimum, a, b); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }

Tensor operator+(const Tensor& a, float b) { return add(a, scalar_tensor(b)); }
Tensor operator-(const Tensor& a, float b) { return sub(a, scalar_tensor(b)); }
Tensor operator*(const Tensor& a, float b) { return mul(a, scalar_tensor(b)); }
Tensor operator/(const Tensor& a, float b) { return div(a, scalar_tensor(b)); }
Tensor operator+(float a, const Tensor& b) { return add(scalar_tensor(a), b); }
Tensor operator-(float a, const Tensor& b) { return sub(scalar_tensor(a), b); }
Tensor operator*(float a, const Tensor& b) { return mul(scalar_tensor(a), b); }
Tensor operator/(float a, const Tensor& b) { return div(scalar_tensor(a), b); }

}  // namespace forge
