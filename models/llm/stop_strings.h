// Stop strings in streamed text: generation ends where one appears, and none of it is ever
// shown, even when it arrives split over several tokens. Text that could still turn out to be
// the start of a stop string is held back until the next piece settles it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

class StopStrings {
public:
    explicit StopStrings(std::vector<std::string> stops);

    // Add a piece of the stream (whole UTF-8 characters); returns the text that is now safe to
    // show. After a stop string is found, stopped() is true, the text before it has been
    // returned, and everything from it on is dropped.
    std::string push(std::string_view piece);
    // The end of the stream without a stop: whatever was held back.
    std::string flush();
    bool stopped() const { return stopped_; }
    // Forget the stream (a new request).
    void reset();

private:
    std::size_t held_suffix() const;

    std::vector<std::string> stops_;
    std::string pending_;
    bool stopped_ = false;
};

}  // namespace forge::llm
