#include "nn/conformer_convolution.h"

#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/shape.h"
#include "core/error.h"

namespace forge::nn {

ConformerConvolution ConformerConvolution::make(ParameterSet& params, const std::string& prefix,
                                                const ConformerConvolutionConfig& config) {
    check(config.kernel_size % 2 == 1, "conformer convolution: kernel size {} must be odd", config.kernel_size);
    const std::int64_t d = config.dim;
    const Conv1dOptions pointwise{.padding = Conv1dPadding::Valid};
    ConformerConvolution c;
    c.config = config;
    c.pointwise1 = Conv1d::make(params, prefix + "pointwise_conv1", d, 2 * d, 1, pointwise, config.bias);
    c.depthwise = Conv1d::make(params, prefix + "depthwise_conv", d, d, config.kernel_size,
                               {.dilation = 1, .groups = d, .padding = Conv1dPadding::Same}, config.bias);
    c.batch_norm = BatchNorm::make(params, prefix + "batch_norm", d);
    c.pointwise2 = Conv1d::make(params, prefix + "pointwise_conv2", d, d, 1, pointwise, config.bias);
    return c;
}

Tensor ConformerConvolution::operator()(const Tensor& x, const Tensor& time_mask) const {
    const std::int64_t d = config.dim;
    const std::int64_t halves[] = {d, d};
    const auto gates = ag::split(pointwise1.pointwise(x), halves, 2);
    Tensor glu = ag::mul(gates[0], ag::sigmoid(gates[1]));  // [B, T, d]
    if (time_mask.defined()) glu = ag::mul(glu, time_mask);
    const Tensor channels_first = ag::contiguous(ag::transpose(glu, 1, 2));  // [B, d, T]
    const Tensor activated = ag::silu(batch_norm(depthwise(channels_first)));
    return pointwise2.pointwise(ag::transpose(activated, 1, 2));
}

}  // namespace forge::nn
