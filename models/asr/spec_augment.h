// SpecAugment's masking (Park et al. 2019, "SpecAugment: A Simple Data Augmentation Method for
// Automatic Speech Recognition"), as NeMo's SpecAugment module applies it to FastConformer
// training: per utterance, `freq_masks` bands of 0..freq_width mel channels and `time_masks`
// spans of 0..max(1, floor(time_width * length)) frames are set to 0 (the mean of the
// per-feature-normalised features). No time warping. Time masks stay inside each utterance's
// valid frames, so padding is never counted as speech.
//
// Each width and start is drawn from the counter RNG at (key, utterance, mask, which), so a
// batch's masks depend only on the key (e.g. stream_key(seed, step)) and not on threads or on
// what was drawn before.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <span>

namespace forge::asr {

struct SpecAugmentOptions {  // defaults: NeMo's FastConformer-CTC configurations
    int freq_masks = 2;
    int freq_width = 27;
    int time_masks = 10;
    double time_width = 0.05;  // fraction of the utterance's length
};

// features [B, T, F] f32; lengths: B valid frame counts (<= T). Returns a masked copy.
Tensor spec_augment(const Tensor& features, std::span<const std::int64_t> lengths, const SpecAugmentOptions& options,
                    std::uint64_t key);

}  // namespace forge::asr
