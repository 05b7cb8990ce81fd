#include "core/autograd/ops/conv1d.h"

#include "core/autograd/variable.h"
#include "core/ops/binary.h"
#include "core/ops/concat.h"
#include "core/ops/matmul.h"
#include "core/ops/reduce.h"

#include <vector>

namespace forge::ag {
namespace {

// The causal left padding (zeros), or none for a valid convolution.
std::int64_t left_padding(std::int64_t kernel, const Conv1dOptions& options) {
    return options.padding == Conv1dPadding::Causal ? (kernel - 1) * options.dilation : 0;
}

Tensor pad_time(const Tensor& x, std::int64_t before, std::int64_t after) {
    std::vector<Tensor> parts;
    const std::int64_t b = x.size(0), c = x.size(1);
    if (before > 0) parts.push_back(Tensor::zeros(Shape{b, c, before}));
    parts.push_back(x);
    if (after > 0) parts.push_back(Tensor::zeros(Shape{b, c, after}));
    return parts.size() == 1 ? x : forge::concat(parts, 2);
}

// cols[b, c*K + k, t] = xpad[b, c, t + k*dilation]: each output step's receptive field as a
// column, so the convolution is one matmul per batch entry.
Tensor unfold(const Tensor& xpad, std::int64_t kernel, std::int64_t dilation, std::int64_t t_out) {
    std::vector<Tensor> taps;
    for (std::int64_t k = 0; k < kernel; ++k) taps.push_back(xpad.narrow(2, k * dilation, t_out).unsqueeze(2));
    const Tensor stacked = forge::concat(taps, 2);  // [B, C, K, T_out]
    return stacked.reshape(Shape{xpad.size(0), xpad.size(1) * kernel, t_out});
}

// The transpose of unfold: every column entry added back to the input step it came from.
Tensor fold(const Tensor& cols, std::int64_t channels, std::int64_t kernel, std::int64_t dilation,
            std::int64_t padded_length) {
    const std::int64_t b = cols.size(0), t_out = cols.size(2);
    const Tensor taps = cols.reshape(Shape{b, channels, kernel, t_out});
    Tensor sum = Tensor::zeros(Shape{b, channels, padded_length});
    for (std::int64_t k = 0; k < kernel; ++k) {
        const Tensor tap = taps.select(2, k);
        sum = forge::add(sum, pad_time(tap, k * dilation, padded_length - t_out - k * dilation));
    }
    return sum;
}

struct Grads {
    Tensor x, weight;
};

// The gradients of one group: x [B, Cin_g, T], weight [Cout_g, Cin_g, K], g [B, Cout_g, T_out].
Grads group_grads(const Tensor& x, const Tensor& weight, const Tensor& g, const Conv1dOptions& options) {
    const std::int64_t kernel = weight.size(2), channels = x.size(1), t = x.size(2), t_out = g.size(2);
    const std::int64_t pad = left_padding(kernel, options);
    const Tensor cols = unfold(pad_time(x, pad, 0), kernel, options.dilation, t_out);  // [B, Cin_g*K, T_out]
    const Tensor w2 = weight.reshape(Shape{weight.size(0), channels * kernel});
    const Tensor gw = forge::sum(matmul(g, cols, false, true), 0).reshape(weight.shape());
    const Tensor gcols = matmul(w2, g, true, false);  // [B, Cin_g*K, T_out]
    const Tensor gx = fold(gcols, channels, kernel, options.dilation, t + pad).narrow(2, pad, t);
    return {gx, gw};
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
                      const std::int64_t groups = options.groups;
                      const std::int64_t in_per = xb.size(1) / groups, out_per = w.size(0) / groups;
                      std::vector<Tensor> gx_parts, gw_parts;
                      for (std::int64_t group = 0; group < groups; ++group) {
                          const Grads part = group_grads(xb.narrow(1, group * in_per, in_per),
                                                         w.narrow(0, group * out_per, out_per),
                                                         gb.narrow(1, group * out_per, out_per), options);
                          gx_parts.push_back(part.x);
                          gw_parts.push_back(part.weight);
                      }
                      Tensor gx = groups == 1 ? gx_parts[0] : forge::concat(gx_parts, 1);
                      if (!batched) gx = gx.squeeze(0);
                      const Tensor gw = groups == 1 ? gw_parts[0] : forge::concat(gw_parts, 0);
                      const Tensor gbias = has_bias && wanted[2] ? forge::sum(forge::sum(gb, 2), 0) : Tensor{};
                      return std::vector<Tensor>{wanted[0] ? gx : Tensor{}, wanted[1] ? gw : Tensor{}, gbias};
                  });
}

}  // namespace forge::ag
