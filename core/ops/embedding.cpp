#include "core/ops/embedding.h"

#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/gather.h"

namespace forge {
namespace {

// Rows per parallel chunk: a few hundred KiB of output per chunk for LLM-sized rows.
constexpr std::int64_t kRowGrain = 64;

template <typename Index>
void check_ids(std::span<const Index> ids, std::int64_t rows) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
        check(ids[i] >= 0 && ids[i] < rows, "embedding: id {} at position {} is out of range for a table of {} rows",
              static_cast<std::int64_t>(ids[i]), i, rows);
    }
}

template <typename Element, typename Index>
void gather(const Tensor& table, const Tensor& ids, const Tensor& out) {
    const std::int64_t dim = table.size(1);
    const std::span<const Element> rows(reinterpret_cast<const Element*>(table.raw_data()),
                                        static_cast<std::size_t>(table.numel()));
    const std::span<const Index> all_ids(reinterpret_cast<const Index*>(ids.raw_data()), static_cast<std::size_t>(ids.numel()));
    check_ids(all_ids, table.size(0));
    float* out_data = out.data<float>();
    ThreadPool::global().parallel_for(ids.numel(), kRowGrain, [&](std::int64_t begin, std::int64_t end) {
        const auto count = static_cast<std::size_t>(end - begin);
        kernels::active::gather_rows(kernels::GatherRows<Element, Index>{
            rows, dim, all_ids.subspan(static_cast<std::size_t>(begin), count),
            {out_data + begin * dim, count * static_cast<std::size_t>(dim)}});
    });
}

template <typename Element>
void gather_by_id_type(const Tensor& table, const Tensor& ids, const Tensor& out) {
    if (ids.dtype() == DType::I32) gather<Element, std::int32_t>(table, ids, out);
    else gather<Element, std::int64_t>(table, ids, out);
}

}  // namespace

Tensor embedding(const Tensor& table_in, const Tensor& ids_in) {
    check(table_in.defined() && ids_in.defined(), "embedding of an undefined tensor");
    check(table_in.rank() == 2, "embedding: the table must be [rows, dim], got shape {}", table_in.shape().to_string());
    check(table_in.dtype() == DType::F32 || table_in.dtype() == DType::F16, "embedding: the table must be f32 or f16, got {}",
          dtype_name(table_in.dtype()));
    check(ids_in.dtype() == DType::I32 || ids_in.dtype() == DType::I64, "embedding: ids must be i32 or i64, got {}",
          dtype_name(ids_in.dtype()));
    const Tensor table = table_in.contiguous();
    const Tensor ids = ids_in.contiguous();
    Shape out_shape = ids.shape();
    out_shape.push_back(table.size(1));
    Tensor out = Tensor::empty(out_shape);
    if (out.numel() == 0) {
        check(ids.numel() == 0 || table.size(0) > 0, "embedding: ids index an empty table");
        return out;
    }
    if (table.dtype() == DType::F16) gather_by_id_type<std::uint16_t>(table, ids, out);
    else gather_by_id_type<float>(table, ids, out);
    return out;
}

}  // namespace forge
