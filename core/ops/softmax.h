// Softmax and log-softmax of an f32 tensor along its last axis: softmax(scale * x).
//
// With causal = true the input is viewed as [..., q, k] (rank >= 2) attention scores, and
// query i sees keys j <= i + (k - q): the queries are the last q of k positions, as in a
// decoder with a KV cache. Masked entries get probability 0 (log-probability -inf); a query
// that sees no key at all gets a row of 0 (-inf).
#pragma once

#include "core/tensor.h"

namespace forge {

Tensor softmax(const Tensor& x, float scale = 1.0f, bool causal = false);
Tensor log_softmax(const Tensor& x, float scale = 1.0f, bool causal = false);

}  // namespace forge
