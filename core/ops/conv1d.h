// 1-D convolution over time (PyTorch's Conv1d, cross-correlation).
#pragma once

#include "core/tensor.h"

#include <cstdint>

namespace forge {

enum class Conv1dPadding {
    Causal,  // left pad (K-1)*dilation: output length T, out[t] sees inputs up to t only
    Valid,   // no padding: output length T - (K-1)*dilation
    Same,    // (K-1)/2*dilation zeros on each side (K odd): output length T, centred taps (Conformer)
};

// The zeros before the first input step that `padding` puts there for a kernel of `taps` taps.
std::int64_t conv1d_left_pad(Conv1dPadding padding, std::int64_t taps, std::int64_t dilation);

struct Conv1dOptions {
    std::int64_t dilation = 1;
    std::int64_t groups = 1;  // groups == C_in == C_out is a depthwise convolution
    Conv1dPadding padding = Conv1dPadding::Causal;
};

// x [B, C_in, T] or [C_in, T] (f32), weight [C_out, C_in/groups, K] (f32), bias [C_out] or an
// undefined Tensor -> [B, C_out, T_out] (or [C_out, T_out] for an unbatched x).
Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, Conv1dOptions options = {});

}  // namespace forge
