#include "models/asr/log_mel.h"

#include "core/error.h"
#include "core/ops/matmul.h"

#include <kiss_fftr.h>

#include <cmath>
#include <memory>
#include <numbers>

namespace forge::asr {
namespace {

// A KISS FFT real-input plan, freed with the library's own deallocator.
struct FftrPlanFree {
    void operator()(kiss_fftr_state* plan) const { kiss_fftr_free(plan); }
};
using FftrPlan = std::unique_ptr<kiss_fftr_state, FftrPlanFree>;

// Per mel bin (row of [n_mels, frames]): subtract the mean, divide by the unbiased standard
// deviation + 1e-5, as NeMo's normalize_batch("per_feature"). One frame has no spread: std 0.
void normalise_per_feature(float* rows, std::int64_t n_mels, std::int64_t frames) {
    constexpr double kStdGuard = 1e-5;
    for (std::int64_t m = 0; m < n_mels; ++m) {
        float* row = rows + m * frames;
        double mean = 0.0;
        for (std::int64_t t = 0; t < frames; ++t) mean += row[t];
        mean /= static_cast<double>(frames);
        double squares = 0.0;
        for (std::int64_t t = 0; t < frames; ++t) squares += (row[t] - mean) * (row[t] - mean);
        const double std = frames > 1 ? std::sqrt(squares / static_cast<double>(frames - 1)) : 0.0;
        const double scale = 1.0 / (std + kStdGuard);
        for (std::int64_t t = 0; t < frames; ++t) row[t] = static_cast<float>((row[t] - mean) * scale);
    }
}

}  // namespace

std::vector<float> hann_window(std::int64_t length) {
    std::vector<float> w(static_cast<std::size_t>(length));
    for (std::int64_t i = 0; i < length; ++i) {
        w[static_cast<std::size_t>(i)] = static_cast<float>(
            0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(length - 1)));
    }
    return w;
}

LogMel::LogMel(const PreprocessorConfig& config, Tensor filterbank, std::vector<float> window)
    : config_(config), filterbank_(filterbank.contiguous()) {
    const std::int64_t bins = config.n_fft / 2 + 1;
    check(filterbank_.dtype() == DType::F32 && filterbank_.shape() == Shape{config.n_mels, bins},
          "log-mel: the filterbank must be f32 [{}, {}], got {}", config.n_mels, bins, filterbank_.shape().to_string());
    check(static_cast<std::int64_t>(window.size()) == config.win_length, "log-mel: the window has {} points, not {}",
          window.size(), config.win_length);
    padded_window_.assign(static_cast<std::size_t>(config.n_fft), 0.0f);
    const std::int64_t offset = (config.n_fft - config.win_length) / 2;
    for (std::int64_t i = 0; i < config.win_length; ++i) {
        padded_window_[static_cast<std::size_t>(offset + i)] = window[static_cast<std::size_t>(i)];
    }
}

Tensor LogMel::power_spectrum(std::span<const float> emphasised) const {
    const std::int64_t n_fft = config_.n_fft, hop = config_.hop_length, bins = n_fft / 2 + 1;
    const std::int64_t n = static_cast<std::int64_t>(emphasised.size()), frames = this->frames(n);
    const FftrPlan plan(kiss_fftr_alloc(static_cast<int>(n_fft), 0, nullptr, nullptr));
    check(plan != nullptr, "log-mel: KISS FFT could not plan a {}-point transform", n_fft);
    std::vector<float> frame(static_cast<std::size_t>(n_fft));
    std::vector<kiss_fft_cpx> spectrum(static_cast<std::size_t>(bins));
    Tensor power = Tensor::empty(Shape{frames, bins});
    float* out = power.data<float>();
    const double exponent = config_.mag_power / 2.0;
    for (std::int64_t f = 0; f < frames; ++f) {
        const std::int64_t start = f * hop - n_fft / 2;  // centred: n_fft/2 zeros before the signal
        for (std::int64_t j = 0; j < n_fft; ++j) {
            const std::int64_t s = start + j;
            const float sample = s >= 0 && s < n ? emphasised[static_cast<std::size_t>(s)] : 0.0f;
            frame[static_cast<std::size_t>(j)] = sample * padded_window_[static_cast<std::size_t>(j)];
        }
        kiss_fftr(plan.get(), frame.data(), spectrum.data());
        for (std::int64_t k = 0; k < bins; ++k) {
            const kiss_fft_cpx c = spectrum[static_cast<std::size_t>(k)];
            const float squared = c.r * c.r + c.i * c.i;
            out[f * bins + k] = exponent == 1.0 ? squared : static_cast<float>(std::pow(squared, exponent));
        }
    }
    return power;
}

Tensor LogMel::operator()(std::span<const float> audio) const {
    check(!audio.empty(), "log-mel: no audio samples");
    std::vector<float> emphasised(audio.begin(), audio.end());
    for (std::size_t i = emphasised.size() - 1; i > 0; --i) emphasised[i] -= config_.preemph * audio[i - 1];
    const Tensor power = power_spectrum(emphasised);                       // [frames, bins]
    Tensor mel = matmul(filterbank_, power, false, true).contiguous();     // [n_mels, frames]
    float* values = mel.data<float>();
    for (std::int64_t i = 0; i < mel.numel(); ++i) values[i] = std::log(values[i] + config_.log_zero_guard);
    normalise_per_feature(values, config_.n_mels, mel.size(1));
    return mel.transpose(0, 1).contiguous();                               // [frames, n_mels]
}

}  // namespace forge::asr
