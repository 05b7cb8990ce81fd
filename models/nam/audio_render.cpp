#include "models/nam/audio_render.h"

#include "core/audio/resample.h"
#include "models/nam/engine.h"
#include "models/nam/loudness.h"

#include <chrono>
#include <cmath>

namespace forge::nam {
namespace {

// The model's rate differs from the input's by more than rounding (a .nam file may store 48000.0).
std::optional<double> other_model_rate(const NamFile& file, int sample_rate) {
    if (file.sample_rate && std::abs(*file.sample_rate - sample_rate) > 0.5) return file.sample_rate;
    return std::nullopt;
}

void apply_gain(std::vector<float>& samples, float gain) {
    for (float& x : samples) x *= gain;
}

RenderedAudio render_with(Engine& engine, const NamFile& file, std::span<const float> signal, int sample_rate,
                          const std::string& source, const RenderOptions& options) {
    RenderedAudio rendered;
    rendered.sample_rate = sample_rate;
    rendered.model_rate = other_model_rate(file, sample_rate);
    std::vector<float> in(signal.begin(), signal.end());
    if (rendered.model_rate) in = audio::resample(in, sample_rate, *rendered.model_rate, source);
    if (options.input_gain_db != 0.0) apply_gain(in, static_cast<float>(amplitude_of_db(options.input_gain_db)));

    const auto start = std::chrono::steady_clock::now();
    rendered.samples = render(engine, in);
    rendered.render_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rendered.audio_seconds = static_cast<double>(in.size()) / file.sample_rate.value_or(sample_rate);

    if (rendered.model_rate) rendered.samples = audio::resample(rendered.samples, *rendered.model_rate, sample_rate, source);
    if (options.normalize) {
        rendered.normalization_gain = normalization_gain(file.metadata);
        if (rendered.normalization_gain) apply_gain(rendered.samples, static_cast<float>(*rendered.normalization_gain));
    }
    return rendered;
}

}  // namespace

RenderedAudio render_audio(const NamFile& file, std::span<const float> signal, int sample_rate,
                           const std::string& source, const RenderOptions& options) {
    Engine engine(make_model(file, options.model), kRenderBlock);
    return render_with(engine, file, signal, sample_rate, source, options);
}

RenderedFile render_audio_file(const NamFile& file, const std::string& input, const std::string& output,
                               const audio::WriteFormat& format, const RenderOptions& options) {
    Engine engine(make_model(file, options.model), kRenderBlock);
    const audio::Audio in = audio::read_audio(input);
    RenderedFile rendered{
        render_with(engine, file, audio::channel_of(in, in.channels == 1 ? 0 : -1), in.sample_rate, input, options),
        in.channels};
    audio::write_audio(output, {rendered.audio.samples, 1, rendered.audio.sample_rate}, format);
    return rendered;
}

}  // namespace forge::nam
