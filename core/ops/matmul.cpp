#include "core/ops/matmul.h"

#include "core/ops/matmul_tiling.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/matmul.h"

#include <algorithm>
#include <type_traits>

namespace forge {
namespace {

// How C is cut into tasks: core/ops/matmul_tiling.h. Below this many multiply-adds a product runs as one task: handing it out costs more.
constexpr std::int64_t kSerialWork = std::int64_t{1} << 16;

Shape batch_shape(const Tensor& t) {
    return Shape(std::span(t.shape().begin(), static_cast<std::size_t>(t.rank() - 2)));
}

Shape with_matrix(Shape batch, std::int64_t rows, std::int64_t cols) {
    batch.push_back(rows);
    batch.push_back(cols);
    return batch;
}

void validate(const Tensor& a, const Tensor& b, bool transpose_b, MatmulPrecision precision) {
    check(a.defined() && b.defined(), "matmul of an undefined tensor");
    check(a.rank() >= 2 && b.rank() >= 2, "matmul needs operands of rank >= 2, got shapes {} and {}",
          a.shape().to_string(), b.shape().to_string());
    check(a.dtype() == DType::F32, "matmul: a must be f32, got {}", dtype_name(a.dtype()));
    check(b.dtype() == DType::F32 || (b.dtype() == DType::F16 && transpose_b),
          "matmul: b must be f32, or f16 weights [n, k] with transpose_b; got {}{}", dtype_name(b.dtype()),
          transpose_b ? "" : " without transpose_b");
    check(precision == MatmulPrecision::f32 || b.dtype() == DType::F32, "matmul: bf16 precision needs f32 operands, b is {}",
          dtype_name(b.dtype()));
}

// The kernel for one block of C: f32 arithmetic, or bf16 operands (f32 blocks only).
template <typename BElement>
void run_kernel(const kernels::MatmulBlock<BElement>& block, std::span<float> scratch, MatmulPrecision precision) {
    if constexpr (std::is_same_v<BElement, float>) {
        if (precision == MatmulPrecision::bf16) {
            kernels::active::matmul_bf16(block, scratch);
            return;
        }
    }
    kernels::active::matmul(block, scratch);
}

// A row-major [batch..., m, k] operand with no batch of its own on the other side is one tall
// matrix: fold its batch axes into m so the whole product shares packed panels of b.
bool fold_batch_into_rows(const Tensor& a, bool transpose_a, const Tensor& b) {
    return a.rank() > 2 && !transpose_a && batch_shape(b).product() == 1 && a.is_contiguous();
}

template <typename T>
kernels::MatrixView<T> matrix_at(const Tensor& t, std::int64_t offset, std::int64_t row, std::int64_t col) {
    const std::int64_t row_stride = t.stride(-2);
    const std::int64_t col_stride = t.stride(-1);
    // f16 has no C++ element type: its bits are read as uint16_t.
    const T* base = reinterpret_cast<const T*>(t.raw_data());
    return {base + offset + row * row_stride + col * col_stride, row_stride, col_stride};
}

// Offset (in elements) of batch entry `index` of a view broadcast to the output's batch shape.
std::int64_t batch_offset(const Tensor& t, const Shape& batch, std::int64_t index) {
    std::int64_t offset = 0;
    for (int axis = batch.rank() - 1; axis >= 0; --axis) {
        offset += (index % batch[axis]) * t.stride(axis);
        index /= batch[axis];
    }
    return offset;
}

template <typename BElement>
void multiply(const Tensor& a, const Tensor& b, const Tensor& c, const Shape& batch, MatmulPrecision precision) {
    const std::int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
    const std::int64_t batches = batch.product();
    const MatmulTiling tiling = matmul_tiling(m, k);
    const bool serial = m * n * k * batches <= kSerialWork;
    const std::int64_t row_tasks = serial ? 1 : tiling.row_tiles(m);
    const std::int64_t col_tasks = serial ? 1 : tiling.col_tiles(n);
    const std::int64_t tile_rows = serial ? m : tiling.rows;
    const std::int64_t tile_cols = serial ? n : tiling.cols;
    const std::int64_t tasks = batches * row_tasks * col_tasks;
    const auto run_task = [&](std::int64_t task) {
        const std::int64_t entry = task / (row_tasks * col_tasks);
        const std::int64_t i0 = (task / col_tasks % row_tasks) * tile_rows;
        const std::int64_t j0 = (task % col_tasks) * tile_cols;
        const std::int64_t rows = std::min(tile_rows, m - i0), cols = std::min(tile_cols, n - j0);
        const std::size_t scratch_floats = kernels::active::matmul_scratch_floats(rows, cols, k);
        const auto scratch = Storage::allocate(std::max<std::size_t>(scratch_floats, 1) * sizeof(float));
        const kernels::MatmulBlock<BElement> block{
            rows, cols, k,
            matrix_at<float>(a, batch_offset(a, batch, entry), i0, 0),
            matrix_at<BElement>(b, batch_offset(b, batch, entry), 0, j0),
            {c.data<float>() + entry * m * n + i0 * n + j0, n}};
        run_kernel(block, {reinterpret_cast<float*>(scratch->data()), scratch_floats}, precision);
    };
    if (tasks == 1) {
        run_task(0);
    } else {
        ThreadPool::global().run(tasks, run_task);
    }
}

// c = a · b for operands already broadcast to the batch shape.
Tensor product(const Tensor& a, const Tensor& b, const Shape& batch, MatmulPrecision precision) {
    Tensor c = Tensor::empty(with_matrix(batch, a.size(-2), b.size(-1)));
    if (c.numel() == 0) return c;
    if (b.dtype() == DType::F16) {
        multiply<std::uint16_t>(a, b, c, batch, precision);
    } else {
        multiply<float>(a, b, c, batch, precision);
    }
    return c;
}

}  // namespace

Tensor matmul(const Tensor& a_in, const Tensor& b_in, bool transpose_a, bool transpose_b, MatmulPrecision precision) {
    validate(a_in, b_in, transpose_b, precision);
    Tensor a = transpose_a ? a_in.transpose(-1, -2) : a_in;
    Tensor b = transpose_b ? b_in.transpose(-1, -2) : b_in;
    check(a.size(-1) == b.size(-2), "matmul: inner sizes differ: a {}{} · b {}{} multiplies [.., {}, {}] by [.., {}, {}]",
          a_in.shape().to_string(), transpose_a ? "ᵀ" : "", b_in.shape().to_string(), transpose_b ? "ᵀ" : "",
          a.size(-2), a.size(-1), b.size(-2), b.size(-1));
    const std::int64_t k = a.size(-1), n = b.size(-1);

    if (fold_batch_into_rows(a, transpose_a, b) && k > 0) {
        Tensor matrix_b = b;
        while (matrix_b.rank() > 2) matrix_b = matrix_b.squeeze(0);  // a batch of one
        const Tensor c = product(a.reshape({a.numel() / k, k}), matrix_b, Shape{}, precision);
        return c.reshape(with_matrix(batch_shape(a), a.size(-2), n));
    }

    Shape batch;
    try {
        batch = broadcast_shapes(batch_shape(a), batch_shape(b));
    } catch (const Error&) {
        fail("matmul: batch shapes of {} and {} do not broadcast", a_in.shape().to_string(), b_in.shape().to_string());
    }
    return product(a.broadcast_to(with_matrix(batch, a.size(-2), k)), b.broadcast_to(with_matrix(batch, k, n)), batch,
                   precision);
}

}  // namespace forge
