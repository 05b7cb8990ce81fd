#include "core/autograd/ops/frozen_linear.h"

#include "core/autograd/variable.h"
#include "core/error.h"
#include "core/ops/binary.h"
#include "core/ops/matmul.h"
#include "core/quant/quantize.h"
#include "core/thread_pool.h"

#include <algorithm>
#include <vector>

namespace forge::ag {
namespace {

// Rows [first, first + tile.size(0)) of the layer's weight as f32 into `tile`. Interleaved
// weights are read back from their copy (the file's pages were given back at load).
void decode_rows(const infer::Linear& layer, std::int64_t first, Tensor& tile) {
    const DType dtype = layer.weight.dtype();
    const std::int64_t n_in = layer.n_in();
    const std::size_t row_bytes = dtype_bytes(dtype, static_cast<std::size_t>(n_in));
    float* out = tile.data<float>();
    ThreadPool::global().parallel_for(tile.size(0), 16, [&](std::int64_t begin, std::int64_t end) {
        std::vector<std::byte> copy(layer.interleaved ? row_bytes : 0);
        for (std::int64_t r = begin; r < end; ++r) {
            std::span<const std::byte> bytes(layer.weight.raw_data() + static_cast<std::size_t>(first + r) * row_bytes,
                                             row_bytes);
            if (layer.interleaved) {
                layer.interleaved->copy_row(first + r, copy);
                bytes = copy;
            }
            quant::dequantize_bytes(dtype, bytes, std::span<float>(out + r * n_in, static_cast<std::size_t>(n_in)));
        }
    });
}

}  // namespace

Tensor frozen_linear_input_gradient(const infer::Linear& layer, const Tensor& dy, std::int64_t tile_rows) {
    const std::int64_t m = dy.size(0), n_out = layer.n_out(), n_in = layer.n_in();
    check(dy.rank() == 2 && dy.size(1) == n_out, "frozen_linear backward: want dy [m, {}], got {}", n_out,
          dy.shape().to_string());
    check(layer.weight.is_contiguous(), "frozen_linear: the weight must be a whole matrix, not a view");
    check(tile_rows > 0, "frozen_linear backward: tile_rows must be positive, got {}", tile_rows);
    const Tensor g = dy.contiguous();
    if (n_out == 0) return Tensor::zeros({m, n_in});
    Tensor dx;
    Tensor tile = Tensor::empty({std::min(tile_rows, n_out), n_in});
    for (std::int64_t first = 0; first < n_out; first += tile_rows) {
        const std::int64_t rows = std::min(tile_rows, n_out - first);
        Tensor w = rows == tile.size(0) ? tile : tile.narrow(0, 0, rows);
        decode_rows(layer, first, w);
        // dx += dy[:, first:first+rows] · W[first:first+rows, :]
        const Tensor part = forge::matmul(g.narrow(1, first, rows).contiguous(), w);
        dx = dx.defined() ? forge::add(dx, part) : part;
    }
    return dx;
}

namespace {

void check_input(const Tensor& x, const infer::Linear& layer) {
    check(x.dtype() == DType::F32 && x.rank() >= 1 && x.size(x.rank() - 1) == layer.n_in(),
          "frozen_linear: want f32 x [..., {}], got {} {}", layer.n_in(), dtype_name(x.dtype()), x.shape().to_string());
}

Shape output_shape(const Tensor& x, const infer::Linear& layer) {
    Shape out = x.shape();
    out[out.rank() - 1] = layer.n_out();
    return out;
}

// y as the output of x's frozen_linear: the backward gives x the gradient dy · W.
Tensor record_input_gradient(const Tensor& x, const infer::Linear& layer, const Tensor& y) {
    if (!any_requires_grad({&x})) return y;
    const std::int64_t m = x.numel() / layer.n_in();
    return record("frozen_linear", y, {&x}, [layer, in_shape = x.shape(), m](const Tensor& g, InputMask) {
        const Tensor dy = g.contiguous().reshape(Shape{m, layer.n_out()});
        return std::vector<Tensor>{frozen_linear_input_gradient(layer, dy).reshape(in_shape)};
    });
}

}  // namespace

Tensor frozen_linear(const Tensor& x, const infer::Linear& layer) {
    check_input(x, layer);
    const Tensor xc = x.contiguous();
    const std::int64_t m = xc.numel() / layer.n_in();
    Tensor y = Tensor::empty(output_shape(x, layer));
    infer::ActivationScratch scratch(m, layer.n_in());
    infer::linear(layer, xc.span<float>(), m, y.span<float>(), scratch);
    return record_input_gradient(x, layer, y);
}

Tensor frozen_linear(const Tensor& x, const infer::Linear& layer, const Tensor& product) {
    check_input(x, layer);
    check(product.dtype() == DType::F32 && product.shape() == output_shape(x, layer),
          "frozen_linear: a kept product must be f32 {}, got {} {}", output_shape(x, layer).to_string(),
          dtype_name(product.dtype()), product.shape().to_string());
    return record_input_gradient(x, layer, detach(product));
}

}  // namespace forge::ag
