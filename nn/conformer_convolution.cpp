#include "nn/conformer_convolution.h"

#include "core/autograd/ops/conv1d.h"
#include "core/autograd/ops/matmul.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/shape.h"
#include "core/error.h"

namespace forge::nn {
namespace {

// A 1x1 convolution on [B, T, in]: the weight [out, in, 1] as a linear layer's [out, in].
Tensor pointwise(const Tensor& x, const Tensor& w, const Tensor& b) {
    return ag::linear(x, ag::reshape(w, Shape{w.size(0), w.size(1)}), b);
}

}  // namespace

ConformerConvolution ConformerConvolution::make(ParameterSet& params, const std::string& prefix,
                                                const ConformerConvolutionConfig& config) {
    check(config.kernel_size % 2 == 1, "conformer convolution: kernel size {} must be odd", config.kernel_size);
    const std::int64_t d = config.dim;
    ConformerConvolution c;
    c.config = config;
    auto conv = [&](const std::string& name, std::int64_t out, std::int64_t in, std::int64_t k, Tensor& w, Tensor& b) {
        const Init init = Init::fan_in_uniform(in * k);
        w = params.add(prefix + name + ".weight", Shape{out, in, k}, init);
        if (config.bias) b = params.add(prefix + name + ".bias", Shape{out}, init);
    };
    conv("pointwise_conv1", 2 * d, d, 1, c.pointwise1_w, c.pointwise1_b);
    conv("depthwise_conv", d, 1, config.kernel_size, c.depthwise_w, c.depthwise_b);
    c.batch_norm = BatchNorm::make(params, prefix + "batch_norm", d);
    conv("pointwise_conv2", d, d, 1, c.pointwise2_w, c.pointwise2_b);
    return c;
}

Tensor ConformerConvolution::operator()(const Tensor& x, const Tensor& time_mask) const {
    const std::int64_t d = config.dim;
    const std::int64_t halves[] = {d, d};
    const auto gates = ag::split(pointwise(x, pointwise1_w, pointwise1_b), halves, 2);
    Tensor glu = ag::mul(gates[0], ag::sigmoid(gates[1]));  // [B, T, d]
    if (time_mask.defined()) glu = ag::mul(glu, time_mask);
    const Tensor channels_first = ag::contiguous(ag::transpose(glu, 1, 2));  // [B, d, T]
    const Tensor mixed = ag::conv1d(channels_first, depthwise_w, depthwise_b,
                                    {.dilation = 1, .groups = d, .padding = Conv1dPadding::Same});
    const Tensor activated = ag::silu(batch_norm(mixed));
    return pointwise(ag::transpose(activated, 1, 2), pointwise2_w, pointwise2_b);
}

}  // namespace forge::nn
