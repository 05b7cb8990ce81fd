#include "core/ops/conv2d.h"

#include "core/error.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/conv2d.h"

namespace forge {
namespace {

void validate(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv2dOptions& options) {
    check(x.defined() && weight.defined(), "conv2d of an undefined tensor");
    check(x.dtype() == DType::F32 && weight.dtype() == DType::F32, "conv2d: x and weight must be f32, got {} and {}",
          dtype_name(x.dtype()), dtype_name(weight.dtype()));
    check(x.rank() == 4, "conv2d: x must be [B, C_in, H, W], got shape {}", x.shape().to_string());
    check(weight.rank() == 4, "conv2d: weight must be [C_out, C_in/groups, KH, KW], got shape {}",
          weight.shape().to_string());
    check(options.stride >= 1, "conv2d: stride must be >= 1, got {}", options.stride);
    check(options.padding >= 0, "conv2d: padding must be >= 0, got {}", options.padding);
    check(options.groups >= 1, "conv2d: groups must be >= 1, got {}", options.groups);
    const std::int64_t in_channels = x.size(1), out_channels = weight.size(0);
    check(in_channels % options.groups == 0 && out_channels % options.groups == 0,
          "conv2d: {} groups must divide C_in = {} and C_out = {}", options.groups, in_channels, out_channels);
    check(weight.size(1) * options.groups == in_channels,
          "conv2d: weight {} expects C_in/groups = {}, but x {} has C_in = {} with {} groups",
          weight.shape().to_string(), weight.size(1), x.shape().to_string(), in_channels, options.groups);
    check(weight.size(2) >= 1 && weight.size(3) >= 1, "conv2d: empty kernel in weight {}", weight.shape().to_string());
    check(x.size(2) + 2 * options.padding >= weight.size(2) && x.size(3) + 2 * options.padding >= weight.size(3),
          "conv2d: the padded image of x {} is smaller than the kernel of weight {}", x.shape().to_string(),
          weight.shape().to_string());
    if (bias.defined()) {
        check(bias.dtype() == DType::F32 && bias.rank() == 1 && bias.size(0) == out_channels,
              "conv2d: bias must be f32 [{}], got {} {}", out_channels, dtype_name(bias.dtype()), bias.shape().to_string());
    }
}

}  // namespace

std::int64_t conv2d_out_size(std::int64_t size, std::int64_t kernel, const Conv2dOptions& options) {
    return (size + 2 * options.padding - kernel) / options.stride + 1;
}

Tensor conv2d(const Tensor& x_in, const Tensor& weight_in, const Tensor& bias_in, Conv2dOptions options) {
    validate(x_in, weight_in, bias_in, options);
    const Tensor x = x_in.contiguous();
    const Tensor weight = weight_in.contiguous();
    const Tensor bias = bias_in.defined() ? bias_in.contiguous() : Tensor();
    const std::int64_t batch = x.size(0), in_channels = x.size(1), height = x.size(2), width = x.size(3);
    const std::int64_t out_channels = weight.size(0), kh = weight.size(2), kw = weight.size(3);
    const std::int64_t out_h = conv2d_out_size(height, kh, options), out_w = conv2d_out_size(width, kw, options);
    Tensor out = Tensor::empty({batch, out_channels, out_h, out_w});
    if (out.numel() == 0) return out;

    const float* x_data = x.data<float>();
    const float* w_data = weight.data<float>();
    const float* b_data = bias.defined() ? bias.data<float>() : nullptr;
    float* out_data = out.data<float>();
    // One task per (batch element, output channel): a plane of work each, fixed by the shape, so
    // results do not depend on the thread count.
    ThreadPool::global().run(batch * out_channels, [&](std::int64_t task) {
        const std::int64_t b = task / out_channels, o = task % out_channels;
        kernels::active::conv2d({x_data + b * in_channels * height * width, in_channels, height, width, w_data, b_data,
                                 out_data + b * out_channels * out_h * out_w, out_channels, out_h, out_w, kh, kw,
                                 options.stride, options.stride, options.padding, options.padding, options.groups, o,
                                 o + 1});
    });
    return out;
}

}  // namespace forge
