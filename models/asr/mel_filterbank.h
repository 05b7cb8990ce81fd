// The mel filterbank NeMo stores in a Parakeet model (preprocessor.featurizer.fb): librosa's
// filters.mel(norm="slaney", htk=False), which NeMo's FilterbankFeatures builds at start-up.
// forge reads the filterbank from the model file to transcribe; it builds one only for a model it
// trains itself (forge train asr exports it beside the weights).
//
//   Slaney mel scale   linear below 1 kHz (mel = f / (200/3)), logarithmic above
//                      (mel = 15 + ln(f / 1000) / (ln 6.4 / 27))
//   centres            n_mels + 2 points evenly spaced in mel from 0 Hz to sample_rate / 2
//   filter i           a triangle over the FFT bins from centre i to centre i + 2, peak 1 at i + 1
//   Slaney norm        each triangle scaled by 2 / (its width in Hz), so each has equal area
#pragma once

#include "core/tensor.h"

#include <cstdint>

namespace forge::asr {

// [n_mels, n_fft/2 + 1] f32, computed in double and rounded once.
Tensor slaney_mel_filterbank(std::int64_t sample_rate, std::int64_t n_fft, std::int64_t n_mels);

}  // namespace forge::asr
