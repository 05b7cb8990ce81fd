// The flat weight list of a .nam file, consumed front to back in the order the architecture
// defines. Reading past the end or leaving weights unread is a FormatError: Core checks the
// count for WaveNet ("Weight mismatch") but, in a release build, not for LSTM; forge checks
// every architecture.
#pragma once

#include "core/error.h"

#include <fmt/format.h>

#include <span>
#include <string>

namespace forge::nam {

class WeightCursor {
public:
    WeightCursor(std::span<const float> weights, std::string source)
        : weights_(weights), source_(std::move(source)) {}

    // The next n weights, for `what` (named in the error if the list is too short).
    std::span<const float> take(std::size_t n, std::string_view what) {
        if (n > weights_.size() - position_)
            fail_format("{}: weights: the list has {} values but the model needs more ({} at {})",
                        source_, weights_.size(), what, position_);
        const auto taken = weights_.subspan(position_, n);
        position_ += n;
        return taken;
    }

    float take_one(std::string_view what) { return take(1, what)[0]; }

    // Every weight must have been used.
    void expect_end() const {
        if (position_ != weights_.size())
            fail_format("{}: weights: the list has {} values but the model uses {}", source_,
                        weights_.size(), position_);
    }

    std::size_t position() const { return position_; }
    const std::string& source() const { return source_; }

private:
    std::span<const float> weights_;
    std::size_t position_ = 0;
    std::string source_;
};

}  // namespace forge::nam
