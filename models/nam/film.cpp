#include "models/nam/film.h"

#include "core/infer/row_ops.h"

namespace forge::nam {

Film::Film(int condition_channels, int channels, const FilmConfig& config, WeightCursor& weights,
           std::string_view what)
    : channels_(channels),
      shift_(config.shift),
      scale_shift_({condition_channels, (config.shift ? 2 : 1) * channels, 1, 1, config.groups, true}, weights,
                   what) {}

void Film::prepare(int max_frames) { scratch_.resize(scale_shift_.out_channels(), max_frames); }

void Film::apply(Signal x, ConstSignal condition, int frames) noexcept {
    const Signal ss = scratch_.signal();
    scale_shift_.process(condition, ss, frames);
    const auto n = static_cast<std::size_t>(frames);
    for (int c = 0; c < channels_; ++c) {
        std::span<float> row(x.row(c), n);
        infer::multiply_rows(row, {ss.row(c), n}, row);
        if (shift_) infer::add_rows(row, {ss.row(channels_ + c), n});
    }
}

}  // namespace forge::nam
