#include "core/autograd/ops/conv1d.h"

#include "core/autograd/variable.h"
#include "core/ops/concat.h"
#include "core/ops/matmul.h"
#include "core/ops/reduce.h"

#include <algorithm>
#include <vector>

namespace forge::ag {
namespace {

std::int64_t left_padding(std::int64_t kernel, const Conv1dOptions& options) {
    return conv1d_left_pad(options.padding, kernel, options.dilation);
}

// The gradient with respect to the input is itself a convolution of g: input step s
// receives w[o, c, k] · g[o, s - k·dilation + pad] from every output channel o and tap k.
// With the taps reversed and the channel axes swapped, w'[c, o, j] = w[o, c, K-1-j], that is
// a forward convolution of g with `after` zeros appended ((K-1)·dilation), whose padding is
// the other kind: a valid forward has a causal transpose and the other way round. One
// conv1d call, so the backward costs what the forward does.
Tensor input_grad(const Tensor& g, const Tensor& weight, const Conv1dOptions& options) {
    const std::int64_t out_per = weight.size(0) / options.groups, in_per = weight.size(1), kernel = weight.size(2);
    const Tensor w = weight.contiguous();
    const auto src = w.span<float>();
    std::vector<float> flipped(src.size());
    for (std::int64_t group = 0; group < options.groups; ++group)
        for (std::int64_t o = 0; o < out_per; ++o)
            for (std::int64_t c = 0; c < in_per; ++c)
                for (std::int64_t k = 0; k < kernel; ++k)
                    flipped[static_cast<std::size_t>(((group * in_per + c) * out_per + o) * kernel + kernel - 1 - k)] =
                        src[static_cast<std::size_t>(((group * out_per + o) * in_per + c) * kernel + k)];
    const Tensor w_t = Tensor::from(std::span<const float>(flipped), Shape{in_per * options.groups, out_per, kernel});
    if (options.padding == Conv1dPadding::Same) {
        return forge::conv1d(g, w_t, Tensor{}, {.dilation = options.dilation, .groups = options.groups,
                                                .padding = Conv1dPadding::Same});
    }
    const std::int64_t after = (kernel - 1) * options.dilation;
    const std::vector<Tensor> parts = {g, Tensor::zeros(Shape{g.size(0), g.size(1), after})};
    const Tensor padded = after > 0 ? forge::concat(parts, 2) : g;
    const Conv1dPadding transposed =
        options.padding == Conv1dPadding::Valid ? Conv1dPadding::Causal : Conv1dPadding::Valid;
    return forge::conv1d(padded, w_t, Tensor{}, {.dilation = options.dilation, .groups = options.groups,
                                                   .padding = transposed});
}

// The weight gradient of one group, tap by tap: gw[o, c, k] = sum over b, t of
// g[b, o, t] · x[b, c, t + k·dilation - pad], a matmul of g with a shifted view of x (the
// output steps whose tap reads the zero padding contribute nothing and are left out).
// x [B, Cin_g, T], g [B, Cout_g, T_out] -> [Cout_g, Cin_g, K].
Tensor weight_grad(const Tensor& x, const Tensor& g, std::int64_t kernel, const Conv1dOptions& options) {
    const std::int64_t pad = left_padding(kernel, options), t_out = g.size(2);
    std::vector<Tensor> taps;
    for (std::int64_t k = 0; k < kernel; ++k) {
        const std::int64_t shift = k * options.dilation - pad;  // x step read at output step 0
        const std::int64_t first = shift < 0 ? -shift : 0;      // first output step inside x
        const std::int64_t end = std::min(t_out, x.size(2) - shift);  // past the last (same padding's right edge)
        if (first >= end) {  // every step of this tap reads padding
            taps.push_back(Tensor::zeros(Shape{g.size(1), x.size(1), 1}));
            continue;
        }
        const Tensor gk = g.narrow(2, first, end - first), xk = x.narrow(2, first + shift, end - first);
        // One row of g per product ([B, Cout_g, 1, T'] times [B, 1, Cin_g, T']ᵀ): the matmul's
        // matrix-vector path, dots along time, where a [Cout_g, T'] · [T', Cin_g] product of a
        // few channels would fill a fraction of the packed kernel's register tile.
        const Tensor per_batch = matmul(gk.unsqueeze(2), xk.unsqueeze(1), false, true);  // [B, Cout_g, 1, Cin_g]
        taps.push_back(forge::sum(per_batch, 0).reshape(Shape{g.size(1), x.size(1), 1}));
    }
    return kernel == 1 ? taps[0] : forge::concat(taps, 2);
}

}  // namespace

Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, Conv1dOptions options) {
    Tensor y = forge::conv1d(x, weight, bias, options);
    if (!any_requires_grad({&x, &weight, &bias})) return y;
    return record("conv1d", y, {&x, &weight, &bias},
                  [x = detach(x), w = detach(weight), has_bias = bias.defined(), options](const Tensor& g,
                                                                                         InputMask wanted) {
                      const bool batched = x.rank() == 3;
                      const Tensor xb = batched ? x : x.unsqueeze(0);
                      const Tensor gb = (batched ? g : g.unsqueeze(0)).contiguous();
                      Tensor gx;
                      if (wanted[0]) {
                          gx = input_grad(gb, w, options);
                          if (!batched) gx = gx.squeeze(0);
                      }
                      Tensor gw;
                      if (wanted[1]) {
                          const std::int64_t groups = options.groups;
                          const std::int64_t in_per = xb.size(1) / groups, out_per = w.size(0) / groups;
                          std::vector<Tensor> parts;
                          for (std::int64_t group = 0; group < groups; ++group)
                              parts.push_back(weight_grad(xb.narrow(1, group * in_per, in_per),
                                                          gb.narrow(1, group * out_per, out_per), w.size(2), options));
                          gw = groups == 1 ? parts[0] : forge::concat(parts, 0);
                      }
                      const Tensor gbias = has_bias && wanted[2] ? forge::sum(forge::sum(gb, 2), 0) : Tensor{};
                      return std::vector<Tensor>{gx, gw, gbias};
                  });
}

}  // namespace forge::ag
