#include "nn/conv_subsampling.h"

#include "core/autograd/ops/conv2d.h"
#include "core/autograd/ops/matmul.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/shape.h"
#include "core/error.h"

#include <cmath>

namespace forge::nn {
namespace {

constexpr Conv2dOptions kStrided{.stride = 2, .padding = 1, .groups = 1};

// A 1x1 convolution is a matrix product over the channel axis: [C, C] · [B, C, H·W].
Tensor pointwise(const Tensor& x, const Tensor& w, const Tensor& b) {
    const std::int64_t batch = x.size(0), c = x.size(1), h = x.size(2), wd = x.size(3);
    const Tensor flat = ag::reshape(ag::contiguous(x), Shape{batch, c, h * wd});
    const Tensor mixed = ag::matmul(ag::reshape(w, Shape{w.size(0), w.size(1)}), flat);
    return ag::reshape(ag::add(mixed, ag::unsqueeze(b, 1)), Shape{batch, w.size(0), h, wd});
}

Tensor depthwise(const Tensor& x, const Tensor& w, const Tensor& b) {
    return ag::conv2d(x, w, b, {.stride = 2, .padding = 1, .groups = x.size(1)});
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
    // PyTorch's Conv2d default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias.
    auto conv = [&](const std::string& name, std::int64_t in_per_group, std::int64_t k, Tensor& w, Tensor& b) {
        const Init init = Init::fan_in_uniform(in_per_group * k * k);
        w = params.add(prefix + "conv." + name + ".weight", Shape{c, in_per_group, k, k}, init);
        b = params.add(prefix + "conv." + name + ".bias", Shape{c}, init);
    };
    ConvSubsampling s;
    s.config = config;
    conv("0", 1, 3, s.conv0_w, s.conv0_b);
    conv("2", 1, 3, s.dw1_w, s.dw1_b);
    conv("3", c, 1, s.pw1_w, s.pw1_b);
    conv("5", 1, 3, s.dw2_w, s.dw2_b);
    conv("6", c, 1, s.pw2_w, s.pw2_b);
    const std::int64_t features = c * subsampled_length(config.feat_in);
    s.out = Linear::make(params, prefix + "out", features, config.d_model, Init::fan_in_uniform(features), true);
    return s;
}

Tensor ConvSubsampling::operator()(const Tensor& x) const {
    check(x.rank() == 3 && x.size(2) == config.feat_in, "conv subsampling: expected [B, T, {}] features, got {}",
          config.feat_in, x.shape().to_string());
    Tensor h = ag::relu(ag::conv2d(ag::unsqueeze(x, 1), conv0_w, conv0_b, kStrided));
    h = ag::relu(pointwise(depthwise(h, dw1_w, dw1_b), pw1_w, pw1_b));
    h = ag::relu(pointwise(depthwise(h, dw2_w, dw2_b), pw2_w, pw2_b));
    const std::int64_t batch = h.size(0), c = h.size(1), t = h.size(2), f = h.size(3);
    const Tensor frames = ag::reshape(ag::contiguous(ag::transpose(h, 1, 2)), Shape{batch, t, c * f});
    return out(frames);
}

}  // namespace forge::nn
