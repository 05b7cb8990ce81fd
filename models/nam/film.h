// FiLM (feature-wise linear modulation): a 1x1 convolution of the condition gives a per-channel,
// per-frame scale (and shift), applied to a signal: y = x · scale (+ shift). As Core's FiLM
// (NAM/film.h): the convolution has a bias, may be grouped, and outputs scale rows on top of
// shift rows.
#pragma once

#include "models/nam/conv.h"

namespace forge::nam {

struct FilmConfig {
    bool active = false;
    bool shift = true;
    int groups = 1;
};

class Film {
public:
    Film(int condition_channels, int channels, const FilmConfig& config, WeightCursor& weights,
         std::string_view what);
    void prepare(int max_frames);
    // x = x · scale(condition) (+ shift(condition)) on `channels` rows, in place.
    void apply(Signal x, ConstSignal condition, int frames) noexcept;

private:
    int channels_;
    bool shift_;
    Conv1x1 scale_shift_;
    SignalBuffer scratch_;
};

}  // namespace forge::nam
