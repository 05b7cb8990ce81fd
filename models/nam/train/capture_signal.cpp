#include "models/nam/train/capture_signal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace forge::nam::train {
namespace {

constexpr int kRate = 48000;
constexpr double kPi = std::numbers::pi;

struct Sizes {
    long validation, sweeps, noise, training;
};

Sizes sizes_of(CaptureSize size) {
    // Full: 9 s validation clips as in NAM v3; short: just enough for a test to train on.
    return size == CaptureSize::Full ? Sizes{9 * kRate, 3 * kRate, 3 * kRate, 120 * kRate}
                                     : Sizes{3 * kRate / 2, kRate, kRate, 8 * kRate};
}

// A small deterministic generator (xorshift64*), so the signal is identical everywhere.
class Noise {
public:
    explicit Noise(std::uint64_t seed) : state_(seed * 2654435761u + 1) {}
    double uniform() {  // [0, 1)
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return static_cast<double>((state_ * 2685821657736338717ull) >> 11) * 0x1.0p-53;
    }
    double symmetric() { return 2.0 * uniform() - 1.0; }

private:
    std::uint64_t state_;
};

// One plucked string (Karplus-Strong): a noise burst circulating in a delay line of one
// period, low-passed each round trip, so highs die first as on a real string. `damping`
// below 1 shortens the note (palm mute).
void pluck(std::vector<float>& out, long at, double freq, double level, long duration, double damping, Noise& noise) {
    const auto period = std::max<long>(2, std::lround(kRate / freq));
    std::vector<double> line(static_cast<std::size_t>(period));
    for (double& v : line) v = noise.symmetric();
    const long end = std::min<long>(static_cast<long>(out.size()), at + duration);
    for (long t = at, i = 0; t < end; ++t, ++i) {
        const auto k = static_cast<std::size_t>(i % period), next = static_cast<std::size_t>((i + 1) % period);
        const double y = line[k];
        line[k] = damping * 0.5 * (line[k] + line[next]);
        const double fade = std::min(1.0, static_cast<double>(end - t) / 480.0);  // 10 ms release, no click
        out[static_cast<std::size_t>(t)] += static_cast<float>(level * y * fade);
    }
}

// Guitar-like material: single notes, chords and palm mutes over E2..E5 at varied dynamics,
// with some noise swells to cover the spectrum between notes.
std::vector<float> music(long length, std::uint64_t seed) {
    std::vector<float> out(static_cast<std::size_t>(length), 0.0f);
    Noise noise(seed);
    long t = 0;
    while (t < length) {
        const double style = noise.uniform();
        const double level = 0.05 + 0.45 * noise.uniform() * noise.uniform() + 0.2 * noise.uniform();
        const long step = static_cast<long>(kRate * (0.08 + 0.5 * noise.uniform()));
        const int strings = style < 0.3 ? 3 : 1;
        const bool mute = style > 0.85;
        for (int s = 0; s < strings; ++s) {
            const double semitone = std::floor(noise.uniform() * 36.0) + (s > 0 ? 7.0 * s : 0.0);
            const double freq = 82.41 * std::pow(2.0, semitone / 12.0);
            pluck(out, t, freq, level / strings, mute ? step / 2 : 2 * step, mute ? 0.97 : 0.999, noise);
        }
        if (style > 0.95) {  // a noise swell
            for (long i = 0; i < step && t + i < length; ++i) {
                const double env = std::sin(kPi * static_cast<double>(i) / static_cast<double>(step));
                out[static_cast<std::size_t>(t + i)] += static_cast<float>(level * env * noise.symmetric());
            }
        }
        t += step;
    }
    for (float& v : out) v = std::clamp(v, -0.98f, 0.98f);
    return out;
}

// Logarithmic sine sweeps 20 Hz -> 20 kHz at three levels, one after another.
void sweeps(std::vector<float>& out, long at, long length) {
    const double levels[3] = {0.05, 0.25, 0.8};
    const long each = length / 3;
    const double f0 = 20.0, f1 = 20000.0, k = std::log(f1 / f0);
    for (int s = 0; s < 3; ++s) {
        const double seconds = static_cast<double>(each) / kRate;
        for (long i = 0; i < each; ++i) {
            const double time = static_cast<double>(i) / kRate;
            const double phase = 2.0 * kPi * f0 * seconds / k * (std::exp(time / seconds * k) - 1.0);
            const double fade = std::min({1.0, static_cast<double>(i) / 240.0, static_cast<double>(each - i) / 240.0});
            out[static_cast<std::size_t>(at + s * each + i)] = static_cast<float>(levels[s] * fade * std::sin(phase));
        }
    }
}

void white_noise(std::vector<float>& out, long at, long length) {
    const double levels[3] = {0.03, 0.15, 0.5};
    const long each = length / 3;
    Noise noise(7);
    for (int s = 0; s < 3; ++s)
        for (long i = 0; i < each; ++i)
            out[static_cast<std::size_t>(at + s * each + i)] = static_cast<float>(levels[s] * noise.symmetric());
}

}  // namespace

CaptureLayout capture_layout(CaptureSize size) {
    const Sizes s = sizes_of(size);
    CaptureLayout layout;
    layout.name = size == CaptureSize::Full ? "forge-1" : "forge-1-short";
    layout.rate = kRate;
    layout.validation_length = s.validation;
    layout.blips_start = s.validation + kRate;  // after 1 s of silence
    layout.blips_length = 2 * kRate;
    layout.blips = {layout.blips_start + kRate / 2, layout.blips_start + 3 * kRate / 2};
    layout.noise_begin = layout.blips_start + kRate / 4;  // silent input before the first blip
    layout.noise_end = layout.noise_begin + kRate / 8;
    layout.train_begin = layout.blips_start;
    layout.train_end = layout.blips_start + layout.blips_length + s.sweeps + s.noise + s.training + kRate / 2;
    layout.validation_begin = layout.train_end;
    layout.length = layout.validation_begin + s.validation;
    return layout;
}

std::vector<float> capture_signal(CaptureSize size) {
    const Sizes s = sizes_of(size);
    const CaptureLayout layout = capture_layout(size);
    std::vector<float> out(static_cast<std::size_t>(layout.length), 0.0f);
    const std::vector<float> clip = music(s.validation, 1);
    std::copy(clip.begin(), clip.end(), out.begin());
    std::copy(clip.begin(), clip.end(), out.begin() + layout.validation_begin);
    for (long b : layout.blips) out[static_cast<std::size_t>(b)] = 0.5f;
    long at = layout.blips_start + layout.blips_length;
    sweeps(out, at, s.sweeps);
    at += s.sweeps;
    white_noise(out, at, s.noise);
    at += s.noise;
    const std::vector<float> training = music(s.training, 2);
    std::copy(training.begin(), training.end(), out.begin() + at);
    return out;
}

}  // namespace forge::nam::train
