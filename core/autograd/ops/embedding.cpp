#include "core/autograd/ops/embedding.h"

#include "core/autograd/variable.h"
#include "core/ops/embedding.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/scatter_add.h"

#include <vector>

namespace forge::ag {
namespace {

// Columns per parallel chunk: each chunk walks every id, so chunks should be wide.
constexpr std::int64_t kColumnGrain = 64;

template <typename Index>
Tensor scatter_rows(const Tensor& g, const Tensor& ids, const Shape& table_shape) {
    Tensor table_grad = Tensor::zeros(table_shape);
    const Tensor rows = g.contiguous(), idc = ids.contiguous();
    const std::int64_t dim = table_shape[1];
    const auto row_span = rows.span<float>();
    const auto id_span = idc.span<Index>();
    const auto table_span = table_grad.span<float>();
    ThreadPool::global().parallel_for(dim, kColumnGrain, [&](std::int64_t begin, std::int64_t end) {
        kernels::active::scatter_add_rows(
            kernels::ScatterAddRows<Index>{row_span, dim, id_span, table_span, begin, end});
    });
    return table_grad;
}

}  // namespace

Tensor embedding(const Tensor& table, const Tensor& ids) {
    Tensor y = forge::embedding(table, ids);  // validates ids against the table
    if (!any_requires_grad({&table})) return y;
    return record("embedding", y, {&table, &ids}, [ids = detach(ids), shape = table.shape()](const Tensor& g, InputMask) {
        Tensor table_grad = ids.dtype() == DType::I32 ? scatter_rows<std::int32_t>(g, ids, shape)
                                                      : scatter_rows<std::int64_t>(g, ids, shape);
        return std::vector<Tensor>{table_grad, Tensor{}};
    });
}

}  // namespace forge::ag
