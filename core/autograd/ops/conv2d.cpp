#include "core/autograd/ops/conv2d.h"

#include "core/autograd/variable.h"
#include "core/ops/binary.h"
#include "core/ops/matmul.h"
#include "core/ops/reduce.h"

#include <vector>

namespace forge::ag {
namespace {

// src [B, C, H, W] placed into zeros [B, C, height, width]: src[.., y, x] lands at
// (row0 + y*step, col0 + x*step); what falls outside is dropped. Pads an input (step 1) and
// spreads a strided gradient out (step = stride).
Tensor place(const Tensor& src_in, std::int64_t height, std::int64_t width, std::int64_t row0, std::int64_t col0,
             std::int64_t step) {
    const Tensor src = src_in.contiguous();
    const std::int64_t planes = src.size(0) * src.size(1), h = src.size(2), w = src.size(3);
    Tensor out = Tensor::zeros(Shape{src.size(0), src.size(1), height, width});
    const float* s = src.data<float>();
    float* d = out.data<float>();
    for (std::int64_t p = 0; p < planes; ++p)
        for (std::int64_t y = 0; y < h; ++y) {
            const std::int64_t row = row0 + y * step;
            if (row < 0 || row >= height) continue;
            for (std::int64_t x = 0; x < w; ++x) {
                const std::int64_t col = col0 + x * step;
                if (col >= 0 && col < width) d[(p * height + row) * width + col] = s[(p * h + y) * w + x];
            }
        }
    return out;
}

// x's gradient: input (row, col) receives w[o, c, i, j] · g[o, y, x] wherever y*stride + i - pad
// = row. With g spread out by the stride and placed K-1-pad in, that is a stride-1, unpadded
// convolution with w'[c, o, i, j] = w[o, c, K-1-i, K-1-j] (per group).
Tensor input_grad(const Tensor& g, const Tensor& weight, std::int64_t height, std::int64_t width,
                  const Conv2dOptions& options) {
    const std::int64_t groups = options.groups, out_per = weight.size(0) / groups, in_per = weight.size(1);
    const std::int64_t kh = weight.size(2), kw = weight.size(3);
    const Tensor w = weight.contiguous();
    const float* src = w.data<float>();
    Tensor flipped = Tensor::empty(Shape{in_per * groups, out_per, kh, kw});
    float* dst = flipped.data<float>();
    for (std::int64_t grp = 0; grp < groups; ++grp)
        for (std::int64_t o = 0; o < out_per; ++o)
            for (std::int64_t c = 0; c < in_per; ++c)
                for (std::int64_t i = 0; i < kh; ++i)
                    for (std::int64_t j = 0; j < kw; ++j)
                        dst[(((grp * in_per + c) * out_per + o) * kh + kh - 1 - i) * kw + kw - 1 - j] =
                            src[(((grp * out_per + o) * in_per + c) * kh + i) * kw + j];
    const Tensor spread = place(g, height + kh - 1, width + kw - 1, kh - 1 - options.padding,
                                kw - 1 - options.padding, options.stride);
    return forge::conv2d(spread, flipped, Tensor{}, {.stride = 1, .padding = 0, .groups = groups});
}

// The weight's gradient, tap by tap: gw[o, c, i, j] = sum over b, y, x of g[b, o, y, x] ·
// xp[b, c, y*stride + i, x*stride + j], xp the zero-padded input; the tap's reads are one
// strided view of xp. Depthwise groups (one channel in, one out) reduce a product instead of
// multiplying matrices of one row.
Tensor weight_grad(const Tensor& x, const Tensor& g, std::int64_t kh, std::int64_t kw, const Conv2dOptions& options) {
    const std::int64_t batch = x.size(0), channels = x.size(1), pad = options.padding, s = options.stride;
    const Tensor xp = place(x, x.size(2) + 2 * pad, x.size(3) + 2 * pad, pad, pad, 1);
    const std::int64_t hp = xp.size(2), wp = xp.size(3), out_h = g.size(2), out_w = g.size(3), n = out_h * out_w;
    const std::int64_t groups = options.groups, out_per = g.size(1) / groups, in_per = channels / groups;
    const Tensor gc = g.contiguous();
    std::vector<float> grad(static_cast<std::size_t>(g.size(1) * in_per * kh * kw));
    for (std::int64_t i = 0; i < kh; ++i)
        for (std::int64_t j = 0; j < kw; ++j) {
            const Tensor tap(xp.storage(), DType::F32, Shape{batch, channels, out_h, out_w},
                             Strides{channels * hp * wp, hp * wp, s * wp, s}, xp.offset() + i * wp + j);
            for (std::int64_t grp = 0; grp < groups; ++grp) {
                const Tensor gg = gc.narrow(1, grp * out_per, out_per).contiguous().reshape(Shape{batch, out_per, n});
                const Tensor xg = tap.narrow(1, grp * in_per, in_per).contiguous().reshape(Shape{batch, in_per, n});
                const Tensor per_batch = out_per == 1 && in_per == 1
                                             ? forge::sum(forge::mul(gg, xg), 2)                   // [B, 1]
                                             : forge::matmul(gg, xg, false, true);                 // [B, Og, Cg]
                const std::vector<float> tap_grad = forge::sum(per_batch, 0).to_vector();
                for (std::int64_t o = 0; o < out_per; ++o)
                    for (std::int64_t c = 0; c < in_per; ++c)
                        grad[static_cast<std::size_t>((((grp * out_per + o) * in_per + c) * kh + i) * kw + j)] =
                            tap_grad[static_cast<std::size_t>(o * in_per + c)];
            }
        }
    return Tensor::from(std::span<const float>(grad), Shape{g.size(1), in_per, kh, kw});
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, Conv2dOptions options) {
    Tensor y = forge::conv2d(x, weight, bias, options);
    if (!any_requires_grad({&x, &weight, &bias})) return y;
    return record("conv2d", y, {&x, &weight, &bias},
                  [x = detach(x), w = detach(weight), has_bias = bias.defined(), options](const Tensor& g,
                                                                                         InputMask wanted) {
                      const Tensor gx = wanted[0] ? input_grad(g, w, x.size(2), x.size(3), options) : Tensor{};
                      const Tensor gw = wanted[1] ? weight_grad(x, g, w.size(2), w.size(3), options) : Tensor{};
                      const Tensor gb = has_bias && wanted[2]
                                            ? forge::sum(forge::sum(forge::sum(g.contiguous(), 3), 2), 0)
                                            : Tensor{};
                      return std::vector<Tensor>{gx, gw, gb};
                  });
}

}  // namespace forge::ag
