// NeMo's log-mel front end (FilterbankFeatures in eval mode, no dither), for one utterance:
//
//   pre-emphasis         y[0] = x[0], y[i] = x[i] - preemph · x[i-1]
//   centred STFT         n_fft/2 zeros on both sides; frame f starts at f · hop; the window
//                        (win_length, centred in n_fft) times the frame; real FFT (KISS FFT)
//   power                |X|^mag_power
//   mel                  the model's filterbank [n_mels, n_fft/2 + 1] times the power spectrum
//   log                  log(mel + log_zero_guard)          (2^-24)
//   per-feature norm     each mel bin minus its mean over the frames, divided by its
//                        unbiased standard deviation + 1e-5
//
// A signal of N samples gives N / hop + 1 frames.
#pragma once

#include "core/tensor.h"
#include "models/asr/parakeet_config.h"

#include <span>
#include <vector>

namespace forge::asr {

class LogMel {
public:
    // filterbank [n_mels, n_fft/2 + 1], window [win_length] (f32).
    LogMel(const PreprocessorConfig& config, Tensor filterbank, std::vector<float> window);

    // audio at config.sample_rate -> features [frames, n_mels], time-major (the encoder's input).
    Tensor operator()(std::span<const float> audio) const;

    std::int64_t frames(std::int64_t samples) const { return samples / config_.hop_length + 1; }
    const PreprocessorConfig& config() const { return config_; }

private:
    Tensor power_spectrum(std::span<const float> emphasised) const;  // [frames, n_fft/2 + 1]

    PreprocessorConfig config_;
    Tensor filterbank_;
    std::vector<float> padded_window_;  // [n_fft]: the window centred, zeros around it
};

// The symmetric Hann window of `length` points (torch.hann_window(length, periodic=False)).
std::vector<float> hann_window(std::int64_t length);

}  // namespace forge::asr
