#include "models/nam/train/losses.h"

#include "core/autograd/ag.h"
#include "core/error.h"
#include "models/nam/train/framing.h"

#include <cmath>
#include <numbers>

namespace forge::nam::train {

Tensor pre_emphasis(const Tensor& x, float coef) {
    const std::int64_t t = x.size(-1);
    return ag::sub(ag::narrow(x, -1, 1, t - 1), ag::mul(ag::narrow(x, -1, 0, t - 1), coef));
}

// The window sits in the middle of the FFT frame, as torch.stft pads a short window; the
// offset only turns the phase, so magnitudes equal a length-`window` DFT evaluated at the
// FFT's bin frequencies.
StftMagnitude::StftMagnitude(int fft_size, int hop, int window)
    : fft_size_(fft_size), hop_(hop), window_(window), bins_(fft_size / 2 + 1) {
    check(window <= fft_size, "STFT: window {} is longer than the FFT size {}", window, fft_size);
    std::vector<float> basis(static_cast<std::size_t>(window) * 2 * bins_);
    const double offset = (fft_size - window) / 2;
    for (int n = 0; n < window; ++n) {
        // torch.hann_window is periodic: 0.5 - 0.5·cos(2πn/N).
        const double w = 0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * n / window);
        for (int k = 0; k < bins_; ++k) {
            const double phase = 2.0 * std::numbers::pi * k * (n + offset) / fft_size;
            basis[static_cast<std::size_t>(n) * 2 * bins_ + k] = static_cast<float>(w * std::cos(phase));
            basis[static_cast<std::size_t>(n) * 2 * bins_ + bins_ + k] = static_cast<float>(-w * std::sin(phase));
        }
    }
    basis_ = Tensor::from(std::span<const float>(basis), {window, 2 * bins_});
}

Tensor StftMagnitude::operator()(const Tensor& x) const {
    // torch.stft(center=True): frame f spans padded[f·hop, f·hop + fft_size), and the window
    // covers its middle `window` samples, from (fft_size - window)/2 on.
    const std::int64_t frames = 1 + x.size(-1) / hop_, offset = (fft_size_ - window_) / 2;
    const Tensor padded = reflect_pad(x, fft_size_ / 2);
    const Tensor windows = frame(ag::narrow(padded, 1, offset, (frames - 1) * hop_ + window_), window_, hop_);
    const Tensor spectrum = ag::matmul(windows, basis_);
    const Tensor re = ag::narrow(spectrum, 2, 0, bins_), im = ag::narrow(spectrum, 2, bins_, bins_);
    // auraloss clamps the power at 1e-8 before the square root (which also keeps the gradient
    // finite at silence: a clamped bin passes none). Adding 1e-8 instead is not the same
    // loss: the log-magnitude term's gradient goes as 1/|X| and is dominated by the quietest
    // bins, where +1e-8 moves |X| by several per cent (tools/make_mrstft_golden.py's test).
    const Tensor power = ag::add(ag::mul(re, re), ag::mul(im, im));
    return ag::sqrt(ag::maximum(power, Tensor::full({1}, 1e-8f)));
}

MultiResolutionStftLoss::MultiResolutionStftLoss() {
    resolutions_.emplace_back(1024, 120, 600);
    resolutions_.emplace_back(2048, 240, 1200);
    resolutions_.emplace_back(512, 50, 240);
}

Tensor MultiResolutionStftLoss::operator()(const Tensor& prediction, const Tensor& target) const {
    Tensor total;
    for (const StftMagnitude& stft : resolutions_) {
        if (prediction.size(-1) <= stft.fft_size() / 2) continue;  // too short to reflect-pad
        const Tensor p = stft(prediction), t = stft(ag::detach(target));
        const Tensor diff = ag::sub(t, p);
        const Tensor convergence = ag::div(ag::sqrt(ag::sum_all(ag::mul(diff, diff))), ag::sqrt(ag::sum_all(ag::mul(t, t))));
        const Tensor log_magnitude = ag::mean_all(ag::abs(ag::sub(ag::log(t), ag::log(p))));
        const Tensor term = ag::add(convergence, log_magnitude);
        total = total.defined() ? ag::add(total, term) : term;
    }
    check(total.defined(), "multi-resolution STFT loss: {} samples is too short for every resolution", prediction.size(-1));
    return ag::mul(total, 1.0f / static_cast<float>(resolutions_.size()));
}

TrainingLoss::TrainingLoss(LossOptions options) : options_(options) {}

Tensor TrainingLoss::operator()(const Tensor& prediction, const Tensor& target) const {
    Tensor loss = ag::mse(prediction, target);
    if (options_.mrstft_weight == 0.0f && options_.pre_emphasis_mse_weight == 0.0f) return loss;
    const Tensor p = pre_emphasis(prediction, options_.pre_emphasis), t = pre_emphasis(target, options_.pre_emphasis);
    if (options_.pre_emphasis_mse_weight > 0.0f) loss = ag::add(loss, ag::mul(ag::mse(p, t), options_.pre_emphasis_mse_weight));
    if (options_.mrstft_weight > 0.0f) loss = ag::add(loss, ag::mul(mrstft_(p, t), options_.mrstft_weight));
    return loss;
}

double esr(std::span<const float> prediction, std::span<const float> target) {
    check(prediction.size() == target.size(), "ESR: {} predictions for {} targets", prediction.size(), target.size());
    double error = 0.0, energy = 0.0;
    for (std::size_t i = 0; i < target.size(); ++i) {
        const double d = static_cast<double>(target[i]) - prediction[i];
        error += d * d;
        energy += static_cast<double>(target[i]) * target[i];
    }
    return energy > 0.0 ? error / energy : (error > 0.0 ? INFINITY : 0.0);
}

}  // namespace forge::nam::train
