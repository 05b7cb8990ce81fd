#include "models/llm/stop_strings.h"

#include <algorithm>

namespace forge::llm {

StopStrings::StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {
    std::erase_if(stops_, [](const std::string& s) { return s.empty(); });
    std::size_t longest = 0;
    for (const std::string& s : stops_) longest = std::max(longest, s.size());
    pending_.reserve(2 * longest + 64);  // a piece plus what is held back: pushing rarely allocates
}

void StopStrings::reset() {
    pending_.clear();
    stopped_ = false;
}

// The length of the longest end of pending_ that is the start of some stop string (shorter
// than the whole stop string: a whole one would have been found).
std::size_t StopStrings::held_suffix() const {
    std::size_t held = 0;
    for (const std::string& stop : stops_) {
        for (std::size_t n = std::min(stop.size() - 1, pending_.size()); n > held; --n) {
            if (std::string_view(pending_).substr(pending_.size() - n) == std::string_view(stop).substr(0, n)) {
                held = n;
                break;
            }
        }
    }
    return held;
}

std::string StopStrings::push(std::string_view piece) {
    if (stopped_) return {};
    pending_.append(piece);
    std::size_t first = std::string::npos;
    for (const std::string& stop : stops_) first = std::min(first, pending_.find(stop));
    if (first != std::string::npos) {
        stopped_ = true;
        std::string out = pending_.substr(0, first);
        pending_.clear();
        return out;
    }
    const std::size_t keep = held_suffix();
    std::string out = pending_.substr(0, pending_.size() - keep);
    pending_.erase(0, pending_.size() - keep);
    return out;
}

std::string StopStrings::flush() {
    std::string out;
    if (!stopped_) out.swap(pending_);
    pending_.clear();
    return out;
}

}  // namespace forge::llm
