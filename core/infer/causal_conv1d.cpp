#include "core/infer/causal_conv1d.h"

#include "kernels/backend.h"
#include "kernels/conv1d.h"

namespace forge::infer {

void causal_conv1d(const Conv1dWeights& w, const float* in, std::int64_t in_stride, float* out,
                   std::int64_t out_stride, std::int64_t frames) noexcept {
    const std::int64_t history = w.history();
    kernels::Conv1d call{};
    call.input = in - history;  // the kernel reads a "valid" convolution from the history on
    call.input_row_stride = in_stride;
    call.in_channels = w.in_channels;
    call.in_length = history + frames;
    call.weight = w.weight;
    call.bias = w.bias;
    call.output = out;
    call.output_row_stride = out_stride;
    call.out_channels = w.out_channels;
    call.out_length = frames;
    call.kernel_size = w.kernel_size;
    call.dilation = w.dilation;
    call.groups = w.groups;
    call.left_pad = 0;
    call.out_channel_begin = 0;
    call.out_channel_end = w.out_channels;
    call.out_begin = 0;
    call.out_end = frames;
    kernels::active::conv1d(call);
}

}  // namespace forge::infer
