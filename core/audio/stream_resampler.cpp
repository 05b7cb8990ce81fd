#include "core/audio/stream_resampler.h"

#include "core/audio/resample.h"
#include "core/error.h"

#include <samplerate.h>

#include <cmath>

namespace forge::audio {

StreamResampler::StreamResampler(double from_rate, double to_rate) : ratio_(to_rate / from_rate) {
    check(from_rate >= kMinSampleRate && from_rate <= kMaxSampleRate && to_rate >= kMinSampleRate &&
              to_rate <= kMaxSampleRate && ratio_ <= kMaxResampleRatio && ratio_ >= 1 / kMaxResampleRatio,
          "cannot resample {} Hz to {} Hz as a stream: rates of {} to {} Hz, a ratio within {}", from_rate, to_rate,
          kMinSampleRate, kMaxSampleRate, kMaxResampleRatio);
    int error = 0;
    state_ = src_new(SRC_SINC_FASTEST, 1, &error);
    check(state_ != nullptr, "resample {} -> {} Hz: {}", from_rate, to_rate, src_strerror(error));
}

StreamResampler::~StreamResampler() { src_delete(state_); }

std::size_t StreamResampler::max_output(std::size_t input_frames) const {
    return static_cast<std::size_t>(std::ceil(static_cast<double>(input_frames) * ratio_)) + 8;
}

std::size_t StreamResampler::process(std::span<const float> in, std::span<float> out) noexcept {
    std::size_t used = 0, written = 0;
    // One call converts everything when `out` has room; the loop only guards a partial call.
    for (int call = 0; call < 4 && used < in.size(); ++call) {
        SRC_DATA data{};
        data.data_in = in.data() + used;
        data.input_frames = static_cast<long>(in.size() - used);
        data.data_out = out.data() + written;
        data.output_frames = static_cast<long>(out.size() - written);
        data.src_ratio = ratio_;
        if (src_process(state_, &data) != 0) break;
        used += static_cast<std::size_t>(data.input_frames_used);
        written += static_cast<std::size_t>(data.output_frames_gen);
        if (data.input_frames_used == 0 && data.output_frames_gen == 0) break;
    }
    return written;
}

}  // namespace forge::audio
