// The training and validation losses of the reference trainer (nam/models/losses.py and
// nam/models/base.py):
//
// - training: MSE + 2e-4 · multi-resolution STFT loss of the pre-emphasized (coefficient
//   0.85) signals (the trainer's default "fit_mrstft"; _CAB_MRSTFT_PRE_EMPH_WEIGHT/_COEF),
//   and for an LSTM also 1 · MSE of the pre-emphasized signals (pre_emph_weight/coef);
// - validation: ESR, the error-to-signal ratio Σ(y - ŷ)² / Σ y².
//
// The STFT loss follows auraloss's MultiResolutionSTFTLoss defaults, which the trainer uses:
// FFT sizes 1024/2048/512, hops 120/240/50, Hann windows of 600/1200/240; per resolution
// spectral convergence ‖|Y| - |Ŷ|‖_F / ‖|Y|‖_F plus mean |log|Y| - log|Ŷ||; the mean over
// resolutions. As torch.stft(center=True) (auraloss's call), the signal is reflect-padded by
// fft_size/2 at both ends, so frame f is centred on sample f·hop and there are 1 + T/hop.
#pragma once

#include "core/tensor.h"

#include <span>
#include <vector>

namespace forge::nam::train {

struct LossOptions {
    float mrstft_weight = 2e-4f;           // 0 turns the STFT term off
    float pre_emphasis_mse_weight = 0.0f;  // the LSTM config's pre-emphasized MSE term (weight 1)
    float pre_emphasis = 0.85f;            // of the STFT and pre-emphasized MSE terms' inputs
};

// y[t] - coef · y[t-1] along the last axis of a [B, T] tensor -> [B, T-1].
Tensor pre_emphasis(const Tensor& x, float coef);

// One STFT resolution: the windowed DFT as a matmul with a fixed basis, magnitudes only.
class StftMagnitude {
public:
    StftMagnitude(int fft_size, int hop, int window);
    // [B, T] -> [B, 1 + T/hop, fft_size/2 + 1]; T must exceed fft_size/2 (the reflection).
    Tensor operator()(const Tensor& x) const;
    int fft_size() const { return fft_size_; }

private:
    int fft_size_, hop_, window_, bins_;
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
