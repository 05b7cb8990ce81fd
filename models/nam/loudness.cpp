#include "models/nam/loudness.h"

#include "core/error.h"
#include "models/nam/engine.h"
#include "models/nam/factory.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace forge::nam {
namespace {

constexpr int kRate = 48000;
constexpr double kInputRmsDb = -15.0;  // the trainer's standard input has this RMS (-15.0 dBFS)

// A plucked string (Karplus-Strong): a delay line of one period, filled with noise, whose
// output is fed back through a two-point average, so the tone starts bright and mellows. The
// noise is smoothed once (a softer pick), which keeps the peaks of the chords under full scale.
void pluck(std::vector<double>& out, std::size_t start, double frequency, std::uint32_t& seed) {
    const auto period = static_cast<std::size_t>(std::lround(kRate / frequency));
    std::vector<double> line(period);
    double previous = 0.0;
    for (double& v : line) {
        seed = seed * 1664525u + 1013904223u;  // a fixed LCG: the same samples everywhere
        const double noise = static_cast<double>(seed >> 8) / static_cast<double>(1u << 24) * 2.0 - 1.0;
        v = previous = 0.5 * (noise + previous);
    }
    for (std::size_t n = start, i = 0; n < out.size(); ++n, i = (i + 1) % period) {
        out[n] += line[i];
        line[i] = 0.4995 * (line[i] + line[(i + 1) % period]);
    }
}

double rms(std::span<const float> x) {
    double sum = 0.0;
    for (float v : x) sum += static_cast<double>(v) * v;
    return std::sqrt(sum / static_cast<double>(std::max<std::size_t>(x.size(), 1)));
}

}  // namespace

std::vector<float> standard_loudness_input() {
    // Four strums, a quarter second apart: E major, A major, E major, B major (Hz, low to high).
    static const std::vector<std::vector<double>> chords = {
        {82.41, 123.47, 164.81, 207.65, 246.94, 329.63},
        {110.00, 164.81, 220.00, 277.18, 329.63},
        {82.41, 123.47, 164.81, 207.65, 246.94, 329.63},
        {123.47, 185.00, 246.94, 311.13, 369.99},
    };
    std::vector<double> mix(kRate, 0.0);
    std::uint32_t seed = 2024;
    for (std::size_t c = 0; c < chords.size(); ++c)
        for (std::size_t s = 0; s < chords[c].size(); ++s)
            pluck(mix, c * kRate / 4 + s * kRate / 125, chords[c][s], seed);  // strings 8 ms apart
    double sum = 0.0;
    for (double v : mix) sum += v * v;
    const double scale = std::pow(10.0, kInputRmsDb / 20.0) / std::sqrt(sum / static_cast<double>(mix.size()));
    std::vector<float> input(mix.size());
    std::transform(mix.begin(), mix.end(), input.begin(), [scale](double v) { return static_cast<float>(v * scale); });
    return input;
}

Loudness measure_loudness(const NamFile& file, std::span<const float> input) {
    check(!input.empty(), "measure_loudness: empty input");
    std::vector<double> levels;  // output RMS at input levels 0, 0.1, ..., 1
    std::vector<float> scaled(input.size());
    for (int k = 0; k <= 10; ++k) {
        const float level = static_cast<float>(k) / 10.0f;
        std::transform(input.begin(), input.end(), scaled.begin(), [level](float v) { return level * v; });
        Engine engine(make_model(file), 64);
        levels.push_back(rms(render(engine, scaled)));
    }
    Loudness result;
    result.loudness_db = 20.0 * std::log10(std::max(levels.back(), 1e-12));  // a silent model: -240 dB
    const double max_gain = levels.back() * static_cast<double>(levels.size());  // a step: every level as loud as the last
    const double min_gain = 0.5 * max_gain;                                       // a ramp: linear
    double sum = 0.0;
    for (double v : levels) sum += v;
    result.gain = max_gain > min_gain ? std::clamp((sum - min_gain) / (max_gain - min_gain), 0.0, 1.0) : 0.0;
    return result;
}

void add_loudness_metadata(NamFile& file) {
    const Loudness l = measure_loudness(file, standard_loudness_input());
    file.metadata.loudness = l.loudness_db;
    file.metadata.gain = l.gain;
}

std::optional<double> normalization_gain(const Metadata& metadata) {
    if (!metadata.loudness) return std::nullopt;
    return amplitude_of_db(kNormalizationTargetDb - *metadata.loudness);
}

}  // namespace forge::nam
