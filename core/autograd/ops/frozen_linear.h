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

// The same op when its product is already known: `product` must be what
// frozen_linear(x, layer) returned for these very values of x (kept from an earlier pass, as
// activation recomputation does: models/llm/lora/). It is returned as the output, with x's
// gradient recorded as above, and the multiply is not run again.
Tensor frozen_linear(const Tensor& x, const infer::Linear& layer, const Tensor& product);

// Rows of W decoded at once. Each tile is one GEMM over k = its rows plus one pass adding its
// product into dx, so small tiles cost GEMM efficiency and passes over dx; 512 rows of a
// 3072-wide matrix are 6 MB of f32, still small beside the activations of a training step
// (512 rather than 128: a LoRA step on the Qwen3-0.6B shape, Q4_K_M, 3% faster).
inline constexpr std::int64_t kFrozenTileRows = 512;

// dy [m, n_out] · W [n_out, n_in] -> [m, n_in], W decoded tile_rows rows at a time (the VJP
// above; tests also pass small tiles, to cover several tiles and a ragged last one).
Tensor frozen_linear_input_gradient(const infer::Linear& layer, const Tensor& dy,
                                    std::int64_t tile_rows = kFrozenTileRows);

}  // namespace forge::ag
