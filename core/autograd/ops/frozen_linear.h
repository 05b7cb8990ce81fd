// A linear layer whose weight does not train and stays in its file's format: y = x · Wᵀ (+ b)
// for an infer::Linear (f32, f16 or any block format, mapped from a GGUF or interleaved at
// load). This is what lets LoRA fine-tune a quantized model (models/llm/lora/): the base
// weights are never widened to f32 as a whole.
//
// The forward pass is the inference front-end's own multiply (core/infer/linear.h), so the
// trained model computes what `forge chat` computes. The backward pass gives only the input's
// gradient, dx = dy · W, decoding W a tile of rows at a time into a small f32 buffer: the
// weight has no gradient, and memory holds one tile of it, never a widened copy.
#pragma once

#include "core/infer/linear.h"
#include "core/tensor.h"

namespace forge::ag {

// x [..., n_in] f32 -> [..., n_out]. Differentiable in x only.
Tensor frozen_linear(const Tensor& x, const infer::Linear& layer);

// dy [m, n_out] · W [n_out, n_in] -> [m, n_in], W decoded tile by tile (the VJP above; also
// what tests compare against a dequantized product).
Tensor frozen_linear_input_gradient(const infer::Linear& layer, const Tensor& dy);

}  // namespace forge::ag
