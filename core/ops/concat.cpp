#include "core/ops/concat.h"

#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/copy.h"

namespace forge {
namespace {

// Bytes per parallel chunk of a concatenation.
constexpr std::int64_t kChunkBytes = std::int64_t{1} << 18;

void validate(std::span<const Tensor> tensors, int axis) {
    check(!tensors.empty(), "concat of no tensors");
    const Tensor& first = tensors[0];
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const Tensor& t = tensors[i];
        check(t.defined(), "concat: tensor {} is undefined", i);
        check(!is_quantized(t.dtype()), "concat: tensor {} has block-quantized dtype {}", i, dtype_name(t.dtype()));
        check(t.dtype() == first.dtype(), "concat: tensor {} has dtype {}, tensor 0 has {}", i, dtype_name(t.dtype()),
              dtype_name(first.dtype()));
        check(t.rank() == first.rank(), "concat: tensor {} has shape {}, tensor 0 has {} (ranks differ)", i,
              t.shape().to_string(), first.shape().to_string());
        for (int a = 0; a < t.rank(); ++a) {
            check(a == axis || t.size(a) == first.size(a),
                  "concat along axis {}: tensor {} has shape {}, tensor 0 has {} (axis {} differs)", axis, i,
                  t.shape().to_string(), first.shape().to_string(), a);
        }
    }
}

}  // namespace

Tensor concat(std::span<const Tensor> tensors, int axis_in) {
    check(!tensors.empty(), "concat of no tensors");
    check(tensors[0].defined(), "concat: tensor 0 is undefined");
    const int axis = normalize_axis(axis_in, tensors[0].rank());
    validate(tensors, axis);

    Shape out_shape = tensors[0].shape();
    std::int64_t total = 0;
    for (const Tensor& t : tensors) total += t.size(axis);
    out_shape[axis] = total;
    Tensor out = Tensor::empty(out_shape, tensors[0].dtype());
    if (out.numel() == 0) return out;

    // View every tensor as [outer, size(axis) * inner]: each input fills a column band of the
    // output's rows.
    const auto element_bytes = static_cast<std::int64_t>(dtype_traits(out.dtype()).block_bytes);
    std::int64_t outer = 1;
    for (int a = 0; a < axis; ++a) outer *= out_shape[a];
    const std::int64_t out_row_bytes = out.numel() / outer * element_bytes;
    std::int64_t column = 0;
    for (const Tensor& t : tensors) {
        const Tensor part = t.contiguous();
        const std::int64_t row_bytes = outer == 0 ? 0 : part.numel() / outer * element_bytes;
        if (row_bytes > 0) {
            const std::int64_t grain = std::max<std::int64_t>(1, kChunkBytes / row_bytes);
            ThreadPool::global().parallel_for(outer, grain, [&](std::int64_t begin, std::int64_t end) {
                kernels::active::copy_rows({part.raw_data() + begin * row_bytes, row_bytes,
                                            out.raw_data() + begin * out_row_bytes + column, out_row_bytes, end - begin,
                                            static_cast<std::size_t>(row_bytes)});
            });
        }
        column += row_bytes;
    }
    return out;
}

std::vector<Tensor> split(const Tensor& x, std::span<const std::int64_t> sizes, int axis_in) {
    check(x.defined(), "split of an undefined tensor");
    const int axis = normalize_axis(axis_in, x.rank());
    std::int64_t sum = 0;
    for (const std::int64_t size : sizes) {
        check(size >= 0, "split: negative piece size {}", size);
        sum += size;
    }
    check(sum == x.size(axis), "split: piece sizes add up to {}, but axis {} of shape {} has size {}", sum, axis_in,
          x.shape().to_string(), x.size(axis));
    std::vector<Tensor> pieces;
    pieces.reserve(sizes.size());
    std::int64_t start = 0;
    for (const std::int64_t size : sizes) {
        pieces.push_back(x.narrow(axis, start, size));
        start += size;
    }
    return pieces;
}

}  // namespace forge
