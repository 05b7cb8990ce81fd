// The mean cross-entropy of a frozen linear head's logits,
//
//   frozen_linear_cross_entropy(x, head, targets) == cross_entropy(frozen_linear(x, head), targets),
//
// computed a chunk of rows at a time so that the logits of all rows never exist at once (the
// idea of Liger-Kernel's fused linear cross-entropy). A language model's head has a row per
// token of its vocabulary: at Qwen3's 151,936 tokens one row of logits is 0.6 MB, and the
// [rows, V] logits, their log-softmax and their gradient of a 256-token training step would be
// 148 MiB each. Here each chunk's logits are multiplied (the inference front-end's own multiply,
// as ag::frozen_linear), turned into log-probabilities, its rows' losses and d logits, and at
// once into d x = d logits · W (frozen_linear's input gradient, W decoded tile by tile); then
// they are dropped. The backward pass has only d x [rows, n_in] to scale by the incoming gradient.
//
// The arithmetic is cross_entropy's own (core/autograd/ops/cross_entropy_rows.h) and the head's
// is frozen_linear's, both row by row: the loss has the bits of the unchunked composition, and
// the gradient does too up to how the GEMMs of d x round a chunk's rows (tested). Rows whose
// target is ignored add nothing to the loss and get a zero gradient, so their logits are never
// computed at all (a conversation's prompt tokens cost nothing in the head).
#pragma once

#include "core/autograd/ops/loss.h"
#include "core/infer/linear.h"
#include "core/tensor.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace forge::ag {

// Sees each chunk's logits [rows.size(), n_out] before they are dropped; rows are the indices
// (into x's rows, x seen as [rows, n_in]) of the chunk's rows, ascending. Only rows with a
// counted target are seen. (Validation reads the argmax of every scored position this way.)
using LogitsObserver = std::function<void(std::span<const std::int64_t> rows, const Tensor& logits)>;

// The most bytes of one chunk's logits (its log-probabilities, and then their gradient, are as
// large): 80 MiB is 138 rows at a 151,936-token vocabulary, so a 256-token step is two chunks of
// 128. Each chunk decodes the whole head once in its input gradient (a Q6_K head of 151,936 x
// 1024: ~0.3 s on this 2-core VM), so smaller chunks cost time: chunks of 52 rows (32 MiB) made
// a Q4_K_M LoRA step's user time ~0.9 s longer for 29 MB less peak memory.
inline constexpr std::size_t kLossChunkBytes = std::size_t{80} << 20;

// x [..., n_in] f32 and targets [...] (i32 or i64, ignore_index where not counted) -> the mean
// loss, rank 0, differentiable in x. chunk_rows caps the rows of a chunk (0: as many as fit
// kLossChunkBytes); the counted rows are cut into chunks of equal size, up to one row.
Tensor frozen_linear_cross_entropy(const Tensor& x, const infer::Linear& head, const Tensor& targets,
                                   const CrossEntropyOptions& options = {}, const LogitsObserver& observe = {},
                                   std::int64_t chunk_rows = 0);

}  // namespace forge::ag
