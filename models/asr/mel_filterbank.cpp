#include "models/asr/mel_filterbank.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace forge::asr {
namespace {

constexpr double kLinearHzPerMel = 200.0 / 3.0;
constexpr double kLogStartHz = 1000.0;
constexpr double kLogStartMel = kLogStartHz / kLinearHzPerMel;  // 15
const double kLogStep = std::log(6.4) / 27.0;                   // mels per e-fold above 1 kHz

double hz_to_mel(double hz) {
    if (hz < kLogStartHz) return hz / kLinearHzPerMel;
    return kLogStartMel + std::log(hz / kLogStartHz) / kLogStep;
}

double mel_to_hz(double mel) {
    if (mel < kLogStartMel) return mel * kLinearHzPerMel;
    return kLogStartHz * std::exp(kLogStep * (mel - kLogStartMel));
}

// Point i of numpy.linspace(0, stop, count): i · step, the last point exactly `stop`, so the
// filterbank matches librosa's bit for bit.
double linspace(double stop, std::int64_t count, std::size_t i) {
    if (static_cast<std::int64_t>(i) == count - 1) return stop;
    return static_cast<double>(i) * (stop / static_cast<double>(count - 1));
}

}  // namespace

Tensor slaney_mel_filterbank(std::int64_t sample_rate, std::int64_t n_fft, std::int64_t n_mels) {
    check(sample_rate > 0 && n_fft >= 2 && n_fft % 2 == 0 && n_mels >= 1,
          "mel filterbank: need a positive sample rate, an even n_fft >= 2 and n_mels >= 1, got {}, {}, {}",
          sample_rate, n_fft, n_mels);
    const std::int64_t bins = n_fft / 2 + 1;
    const double nyquist = static_cast<double>(sample_rate) / 2.0;
    std::vector<double> centres(static_cast<std::size_t>(n_mels + 2));  // Hz
    const double top = hz_to_mel(nyquist);
    for (std::size_t i = 0; i < centres.size(); ++i) centres[i] = mel_to_hz(linspace(top, n_mels + 2, i));
    std::vector<float> weights(static_cast<std::size_t>(n_mels * bins));
    for (std::int64_t m = 0; m < n_mels; ++m) {
        const double low = centres[static_cast<std::size_t>(m)], mid = centres[static_cast<std::size_t>(m + 1)];
        const double high = centres[static_cast<std::size_t>(m + 2)];
        const double area_norm = 2.0 / (high - low);
        for (std::int64_t k = 0; k < bins; ++k) {
            const double hz = linspace(nyquist, bins, static_cast<std::size_t>(k));
            const double rising = (hz - low) / (mid - low), falling = (high - hz) / (high - mid);
            weights[static_cast<std::size_t>(m * bins + k)] =
                static_cast<float>(std::max(0.0, std::min(rising, falling)) * area_norm);
        }
    }
    return Tensor::from(std::span<const float>(weights), Shape{n_mels, bins});
}

}  // namespace forge::asr
