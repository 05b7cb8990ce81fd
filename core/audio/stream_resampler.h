// Sample-rate conversion of a stream that arrives in blocks (libsamplerate, SRC_SINC_FASTEST):
// the filter state carries from block to block, so the blocks join without a seam. The
// constructor allocates (src_new); process() does not (src_process on that state), so it can
// run in an audio callback.
#pragma once

#include <cstddef>
#include <span>

struct SRC_STATE_tag;

namespace forge::audio {

class StreamResampler {
public:
    // Rates as resample() accepts them (resample.h); throws otherwise.
    StreamResampler(double from_rate, double to_rate);
    ~StreamResampler();
    StreamResampler(const StreamResampler&) = delete;
    StreamResampler& operator=(const StreamResampler&) = delete;

    // The most frames process() writes for `input_frames` frames in.
    std::size_t max_output(std::size_t input_frames) const;

    // Converts all of `in`; `out` has room for max_output(in.size()). Returns the frames written.
    std::size_t process(std::span<const float> in, std::span<float> out) noexcept;

private:
    SRC_STATE_tag* state_ = nullptr;
    double ratio_;
};

}  // namespace forge::audio
