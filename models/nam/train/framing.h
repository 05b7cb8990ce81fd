// Cutting a signal into overlapping frames, differentiably: the first step of a short-time
// Fourier transform. forge's autograd had no strided view, so this is its own op.
#pragma once

#include "core/tensor.h"

#include <cstdint>

namespace forge::nam::train {

// x [B, T] -> [B, F, length], frame f = x[:, f·hop : f·hop + length], F = 1 + (T - length) / hop
// (no padding; a tail shorter than a hop is left out). The VJP adds each frame's gradient
// back where the frame came from (overlap-add).
Tensor frame(const Tensor& x, std::int64_t length, std::int64_t hop);

// x [B, T] -> [B, T + 2·pad], mirrored at both ends without repeating the edge sample
// (torch.nn.functional.pad mode "reflect", what torch.stft(center=True) does); pad < T. The
// VJP adds each mirrored sample's gradient back to its source.
Tensor reflect_pad(const Tensor& x, std::int64_t pad);

}  // namespace forge::nam::train
