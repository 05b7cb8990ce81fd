#include "core/ops/conv1d.h"

#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/conv1d.h"

#include <algorithm>

namespace forge {
namespace {

// Time steps per task: a chunk of ~2^16 output samples x (in channels x taps) of work is well
// above the cost of handing it out, and a long clip still splits across threads. Fixed by the
// shape, so results do not depend on the thread count.
constexpr std::int64_t kTaskWork = std::int64_t{1} << 20;
constexpr std::int64_t kMinTaskTime = 256;

void validate(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv1dOptions& options) {
    check(x.defined() && weight.defined(), "conv1d of an undefined tensor");
    check(x.dtype() == DType::F32 && weight.dtype() == DType::F32, "conv1d: x and weight must be f32, got {} and {}",
          dtype_name(x.dtype()), dtype_name(weight.dtype()));
    check(x.rank() == 2 || x.rank() == 3, "conv1d: x must be [B, C_in, T] or [C_in, T], got shape {}", x.shape().to_string());
    check(weight.rank() == 3, "conv1d: weight must be [C_out, C_in/groups, K], got shape {}", weight.shape().to_string());
    check(options.dilation >= 1, "conv1d: dilation must be >= 1, got {}", options.dilation);
    check(options.groups >= 1, "conv1d: groups must be >= 1, got {}", options.groups);
    const std::int64_t in_channels = x.size(-2), out_channels = weight.size(0);
    check(in_channels % options.groups == 0 && out_channels % options.groups == 0,
          "conv1d: {} groups must divide C_in = {} and C_out = {}", options.groups, in_channels, out_channels);
    check(weight.size(1) * options.groups == in_channels,
          "conv1d: weight {} expects C_in/groups = {}, but x {} has C_in = {} with {} groups", weight.shape().to_string(),
          weight.size(1), x.shape().to_string(), in_channels, options.groups);
    check(weight.size(2) >= 1, "conv1d: kernel size must be >= 1, got weight {}", weight.shape().to_string());
    if (bias.defined()) {
        check(bias.dtype() == DType::F32 && bias.rank() == 1 && bias.size(0) == out_channels,
              "conv1d: bias must be f32 [{}], got {} {}", out_channels, dtype_name(bias.dtype()), bias.shape().to_string());
    }
    if (options.padding == Conv1dPadding::Same) {
        check(weight.size(2) % 2 == 1, "conv1d: same padding needs an odd kernel size, got weight {}",
              weight.shape().to_string());
    }
    if (options.padding == Conv1dPadding::Valid) {
        const std::int64_t span = (weight.size(2) - 1) * options.dilation + 1;
        check(x.size(-1) >= span, "conv1d: valid convolution needs T >= (K-1)*dilation+1 = {}, got T = {}", span, x.size(-1));
    }
}

}  // namespace

std::int64_t conv1d_left_pad(Conv1dPadding padding, std::int64_t taps, std::int64_t dilation) {
    switch (padding) {
        case Conv1dPadding::Causal: return (taps - 1) * dilation;
        case Conv1dPadding::Valid: return 0;
        case Conv1dPadding::Same: return (taps - 1) / 2 * dilation;
    }
    return 0;
}

Tensor conv1d(const Tensor& x_in, const Tensor& weight_in, const Tensor& bias_in, Conv1dOptions options) {
    validate(x_in, weight_in, bias_in, options);
    const Tensor x = x_in.rank() == 2 ? x_in.unsqueeze(0).contiguous() : x_in.contiguous();
    const Tensor weight = weight_in.contiguous();
    const Tensor bias = bias_in.defined() ? bias_in.contiguous() : Tensor();
    const std::int64_t batch = x.size(0), in_channels = x.size(1), length = x.size(2);
    const std::int64_t out_channels = weight.size(0), taps = weight.size(2);
    const bool valid = options.padding == Conv1dPadding::Valid;
    const std::int64_t out_length = valid ? length - (taps - 1) * options.dilation : length;
    const std::int64_t left_pad = conv1d_left_pad(options.padding, taps, options.dilation);
    Tensor out = Tensor::empty({batch, out_channels, out_length});
    if (out.numel() == 0) return x_in.rank() == 2 ? out.squeeze(0) : out;

    const std::int64_t work_per_step = out_channels * (in_channels / options.groups) * taps;
    const std::int64_t task_time =
        std::clamp<std::int64_t>(kTaskWork / std::max<std::int64_t>(work_per_step, 1), kMinTaskTime, out_length);
    const std::int64_t time_tasks = (out_length + task_time - 1) / task_time;
    const float* x_data = x.data<float>();
    const float* w_data = weight.data<float>();
    const float* b_data = bias.defined() ? bias.data<float>() : nullptr;
    float* out_data = out.data<float>();
    ThreadPool::global().run(batch * time_tasks, [&](std::int64_t task) {
        const std::int64_t b = task / time_tasks;
        const std::int64_t t0 = task % time_tasks * task_time;
        kernels::active::conv1d({x_data + b * in_channels * length, length, in_channels, length, w_data, b_data,
                                 out_data + b * out_channels * out_length, out_length, out_channels, out_length, taps,
                                 options.dilation, options.groups, left_pad, 0,
                                 out_channels, t0, std::min(out_length, t0 + task_time)});
    });
    return x_in.rank() == 2 ? out.squeeze(0) : out;
}

}  // namespace forge
