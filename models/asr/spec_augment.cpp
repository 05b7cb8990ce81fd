#include "models/asr/spec_augment.h"

#include "core/error.h"
#include "core/random/counter_rng.h"

#include <algorithm>
#include <cmath>

namespace forge::asr {
namespace {

// An integer uniform in [0, n], drawn at counter (utterance, mask, which).
std::int64_t draw(std::uint64_t key, std::int64_t utterance, int mask, int which, std::int64_t n) {
    const std::uint64_t counter = (static_cast<std::uint64_t>(utterance) << 32) ^
                                  (static_cast<std::uint64_t>(mask) << 2) ^ static_cast<std::uint64_t>(which);
    return static_cast<std::int64_t>(random::random_bits(key, counter) % static_cast<std::uint64_t>(n + 1));
}

enum Which { kFreqWidth = 0, kFreqStart = 1, kTimeWidth = 2, kTimeStart = 3 };

}  // namespace

Tensor spec_augment(const Tensor& features, std::span<const std::int64_t> lengths, const SpecAugmentOptions& o,
                    std::uint64_t key) {
    check(features.dtype() == DType::F32 && features.rank() == 3, "spec_augment: features must be f32 [batch, frames, "
          "features], got {} {}", dtype_name(features.dtype()), features.shape().to_string());
    const std::int64_t batch = features.size(0), frames = features.size(1), width = features.size(2);
    check(static_cast<std::int64_t>(lengths.size()) == batch, "spec_augment: {} lengths for a batch of {}",
          lengths.size(), batch);
    check(o.freq_masks >= 0 && o.time_masks >= 0 && o.freq_width >= 0 && o.time_width >= 0.0 && o.time_width <= 1.0,
          "spec_augment: mask counts and widths must be >= 0 and time_width <= 1");
    Tensor out = features.contiguous().clone();
    float* x = out.data<float>();
    for (std::int64_t b = 0; b < batch; ++b) {
        const std::int64_t length = lengths[static_cast<std::size_t>(b)];
        check(length >= 0 && length <= frames, "spec_augment: lengths[{}] = {} is outside [0, {}]", b, length, frames);
        float* item = x + b * frames * width;
        const std::int64_t max_band = std::min<std::int64_t>(o.freq_width, width);
        for (int m = 0; m < o.freq_masks; ++m) {
            const std::int64_t w = draw(key, b, m, kFreqWidth, max_band);
            const std::int64_t start = draw(key, b, m, kFreqStart, width - w);
            for (std::int64_t t = 0; t < length; ++t) std::fill(item + t * width + start, item + t * width + start + w, 0.0f);
        }
        if (length == 0) continue;
        const std::int64_t max_span =
            std::min(length, std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(o.time_width * length))));
        for (int m = 0; m < o.time_masks; ++m) {
            const std::int64_t w = draw(key, b, m, kTimeWidth, max_span);
            const std::int64_t start = draw(key, b, m, kTimeStart, length - w);
            std::fill(item + start * width, item + (start + w) * width, 0.0f);
        }
    }
    return out;
}

}  // namespace forge::asr
