#include "nn/conv_subsampling.h"

#include "core/autograd/ops/matmul.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/shape.h"
#include "core/error.h"

#include <cmath>

namespace forge::nn {
namespace {

constexpr Conv2dOptions kStrided{.stride = 2, .padding = 1, .groups = 1};

// A 1x1 convolution is a matrix product over the channel axis: [C, C] · [B, C, H·W].
Tensor pointwise(const Tensor& x, const Conv2d& conv) {
    const Tensor& w = conv.weight;
    const std::int64_t batch = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3);
    const Tensor flat = ag::reshape(ag::contiguous(x), Shape{batch, c, h * wd});
    const Tensor mixed = ag::matmul(ag::reshape(w, Shape{w.size(0), w.size(1)}), flat);
    return ag::reshape(ag::add(mixed, ag::unsqueeze(conv.bias, 1)), Shape{batch, w.size(0), h, wd});
}

}  // namespace

std::int64_t ConvSubsampling::subsampled_length(std::int64_t length) {
    for (int stage = 0; stage < 3; ++stage) length = conv2d_out_size(length, 3, kStrided);
    return length;
}

ConvSubsampling ConvSubsampling::make(ParameterSet& params, const std::string& prefix,
                                      const ConvSubsamplingConfig& config) {
    check(config.feat_in >= 1 && config.channels >= 1 && config.d_model >= 1,
          "conv subsampling: feat_in {}, channels {} and d_model {} must be positive", config.feat_in, config.channels,
          config.d_model);
    const std::int64_t c = config.channels;
    const Conv2dOptions depthwise{.stride = 2, .padding = 1, .groups = c};
    ConvSubsampling s;
    s.config = config;
    s.conv0 = Conv2d::make(params, prefix + "conv.0", 1, c, 3, kStrided);
    s.depthwise1 = Conv2d::make(params, prefix + "conv.2", c, c, 3, depthwise);
    s.pointwise1 = Conv2d::make(params, prefix + "conv.3", c, c, 1, {});
    s.depthwise2 = Conv2d::make(params, prefix + "conv.5", c, c, 3, depthwise);
    s.pointwise2 = Conv2d::make(params, prefix + "conv.6", c, c, 1, {});
    const std::int64_t features = c * subsampled_length(config.feat_in);
    s.out = Linear::make(params, prefix + "out", features, config.d_model, Init::fan_in_uniform(features), true);
    return s;
}

Tensor ConvSubsampling::operator()(const Tensor& x) const {
    check(x.rank() == 3 && x.size(2) == config.feat_in, "conv subsampling: expected [B, T, {}] features, got {}",
          config.feat_in, x.shape().to_string());
    Tensor h = ag::relu(conv0(ag::unsqueeze(x, 1)));
    h = ag::relu(pointwise(depthwise1(h), pointwise1));
    h = ag::relu(pointwise(depthwise2(h), pointwise2));
    const std::int64_t batch = h.size(0), c = h.size(1), t = h.size(2), f = h.size(3);
    const Tensor frames = ag::reshape(ag::contiguous(ag::transpose(h, 1, 2)), Shape{batch, t, c * f});
    return out(frames);
}

}  // namespace forge::nn
