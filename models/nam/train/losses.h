// The training and validation losses of the reference trainer (nam/models/losses.py and
// nam/models/base.py):
//
// - training: MSE + 2e-4 · multi-resolution STFT loss of the pre-emphasized (coefficient
//   0.85) signals (the trainer's default "fit_mrstft"; _CAB_MRSTFT_PRE_EMPH_WEIGHT/_COEF);
// - validation: ESR, the error-to-signal ratio Σ(y - ŷ)² / Σ y².
//
// The STFT loss follows auraloss's MultiResolutionSTFTLoss defaults, which the trainer uses:
// FFT sizes 1024/2048/512, hops 120/240/50, Hann windows of 600/1200/240; per resolution
// spectral convergence ‖|Y| - |Ŷ|‖_F / ‖|Y|‖_F plus mean |log|Y| - log|Ŷ||; the mean over
// resolutions. Unlike torch.stft(center=True), frames are not reflect-padded at the ends.
#pragma once

#include "core/tensor.h"

#include <span>
#include <vector>

namespace forge::nam::train {

struct LossOptions {
    float mrstft_weight = 2e-4f;     // 0 turns the STFT term off
    float pre_emphasis = 0.85f;      // of the STFT term's inputs
};

// y[t] - coef · y[t-1] along the last axis of a [B, T] tensor -> [B, T-1].
Tensor pre_emphasis(const Tensor& x, float coef);

// One STFT resolution: the windowed DFT as a matmul with a fixed basis, magnitudes only.
class StftMagnitude {
public:
    StftMagnitude(int fft_size, int hop, int window);
    Tensor operator()(const Tensor& x) const;  // [B, T] -> [B, frames, fft_size/2 + 1]
    int window() const { return window_; }

private:
    int hop_, window_, bins_;
    Tensor basis_;  // [window, 2·bins]: Hann-windowed cos | -sin
};

class MultiResolutionStftLoss {
public:
    MultiResolutionStftLoss();  // auraloss's three default resolutions
    Tensor operator()(const Tensor& prediction, const Tensor& target) const;  // rank 0

private:
    std::vector<StftMagnitude> resolutions_;
};

class TrainingLoss {
public:
    explicit TrainingLoss(LossOptions options = {});
    Tensor operator()(const Tensor& prediction, const Tensor& target) const;  // rank 0

private:
    LossOptions options_;
    MultiResolutionStftLoss mrstft_;
};

// Σ(target - prediction)² / Σ target², in double.
double esr(std::span<const float> prediction, std::span<const float> target);

}  // namespace forge::nam::train
