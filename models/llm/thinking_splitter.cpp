#include "models/llm/thinking_splitter.h"

#include <algorithm>

namespace forge::llm {

namespace {

constexpr std::string_view kOpen = "<think>";
constexpr std::string_view kClose = "</think>";

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// How many bytes at the end of `text` may be the start of `tag` (held back until decided).
std::size_t partial_tag(std::string_view text, std::string_view tag) {
    for (std::size_t n = std::min(text.size(), tag.size() - 1); n > 0; --n) {
        if (tag.starts_with(text.substr(text.size() - n))) return n;
    }
    return 0;
}

}  // namespace

SplitText ThinkingSplitter::push(std::string_view piece) {
    pending_ += piece;
    SplitText out;
    scan(out, false);
    return out;
}

SplitText ThinkingSplitter::finish() {
    SplitText out;
    scan(out, true);
    return out;
}

bool ThinkingSplitter::skip_space(State next, bool final) {
    pending_.erase(pending_.begin(), std::find_if_not(pending_.begin(), pending_.end(), is_space));
    if (pending_.empty() && !final) return false;
    state_ = next;
    return true;
}

void ThinkingSplitter::scan(SplitText& out, bool final) {
    for (bool moved = true; moved;) {
        moved = false;
        if (state_ == State::Start) {
            // Whitespace before the tag is not content yet: the model may still open it.
            const auto text = std::string_view(pending_).substr(
                std::find_if_not(pending_.begin(), pending_.end(), is_space) - pending_.begin());
            if (text.starts_with(kOpen)) {
                pending_.erase(0, pending_.size() - text.size() + kOpen.size());
                state_ = State::AfterOpen;
                moved = true;
            } else if (final || !kOpen.starts_with(text.substr(0, std::min(text.size(), kOpen.size())))) {
                state_ = State::Content;
                moved = true;
            }
        } else if (state_ == State::AfterOpen) {
            moved = skip_space(State::Thinking, final);
        } else if (state_ == State::Thinking) {
            const std::size_t close = pending_.find(kClose);
            if (close != std::string::npos) {
                out.thinking += pending_.substr(0, close);
                pending_.erase(0, close + kClose.size());
                state_ = State::AfterThinking;
                moved = true;
            } else {
                const std::size_t keep = final ? 0 : partial_tag(pending_, kClose);
                out.thinking += pending_.substr(0, pending_.size() - keep);
                pending_.erase(0, pending_.size() - keep);
            }
        } else if (state_ == State::AfterThinking) {
            moved = skip_space(State::Content, final);
        } else {
            out.content += pending_;
            pending_.clear();
        }
    }
}

}  // namespace forge::llm
