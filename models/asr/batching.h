// Batches of variable-length utterances for training: which utterances go together, and one
// padded tensor per batch with the lengths and a mask that say where the padding is.
#pragma once

#include "core/tensor.h"
#include "models/asr/manifest.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::asr {

// Utterances of similar duration batched together, so little of a batch is padding: sorted by
// duration jittered by up to ±5% (drawn from (seed, epoch), so batches differ between epochs),
// cut where the batch's padded audio (count × longest duration) would pass max_padded_seconds,
// the batches then shuffled (again from (seed, epoch)). Every utterance is in exactly one batch;
// one longer than max_padded_seconds is a batch of its own.
std::vector<std::vector<std::size_t>> duration_batches(std::span<const Utterance> utterances,
                                                       double max_padded_seconds, std::uint64_t seed,
                                                       std::uint64_t epoch);

// SortaGrad (Amodei et al. 2016, "Deep Speech 2"): `batches` reordered from the one whose
// longest utterance is shortest to the one whose longest is longest (ties keep their order).
// A trainer does this to its first epoch: short utterances have few labels to align, so CTC's
// gradient says clearly which frames carry which label while the model is still untrained.
void order_by_duration(std::vector<std::vector<std::size_t>>& batches, std::span<const Utterance> utterances);

struct PaddedBatch {
    Tensor values;                      // [B, T_max, F] (or [B, T_max] for [T_i] items), 0 past each length
    Tensor mask;                        // [B, T_max] f32: 1 at valid positions, 0 at padding
    std::vector<std::int64_t> lengths;  // B valid lengths
};

// items: f32, each [T_i, F] with the same F (features) or each [T_i] (waveforms); T_i >= 1.
PaddedBatch pad_batch(std::span<const Tensor> items);

}  // namespace forge::asr
