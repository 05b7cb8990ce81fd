#include "models/llm/lookup_drafter.h"

#include "core/error.h"

#include <algorithm>

namespace forge::llm {

std::shared_ptr<const std::vector<std::int32_t>> lookup_reference(const Tokenizer& tokenizer, std::string_view text) {
    return std::make_shared<const std::vector<std::int32_t>>(tokenizer.encode(text, false, false));
}

LookupDrafter::LookupDrafter(const LookupOptions& options, std::int64_t capacity) : options_(options) {
    check(options.ngram_min >= 1 && options.ngram_min <= options.ngram_max,
          "lookup: the n-gram sizes must satisfy 1 <= min <= max, got {} and {}", options.ngram_min, options.ngram_max);
    text_.reserve(static_cast<std::size_t>(std::max<std::int64_t>(capacity, 0)));
}

void LookupDrafter::reset(std::span<const std::int32_t> text) {
    text_.assign(text.begin(), text.end());
    followed_ = 0;
}

void LookupDrafter::push(std::int32_t token) { text_.push_back(token); }

// How many tokens before source[next] equal the text's last ones (at most n_max).
std::size_t LookupDrafter::match_length(std::span<const std::int32_t> source, std::size_t next) const {
    const std::size_t n = text_.size();
    const auto n_max = static_cast<std::size_t>(options_.ngram_max);
    std::size_t length = 0;
    while (length < n_max && length < next && length < n && source[next - 1 - length] == text_[n - 1 - length]) ++length;
    return length;
}

// Among the longest matches the most recent (`earliest` false: walking back from the end) or
// the first (walking forward); either walk stops at the first match of n_max tokens.
LookupDrafter::Match LookupDrafter::longest_match(std::span<const std::int32_t> source, std::size_t end,
                                                  bool earliest) const {
    Match best;
    if (text_.empty()) return best;
    const std::int32_t last = text_.back();
    const auto n_max = static_cast<std::size_t>(options_.ngram_max);
    // Whether the continuation at `next` ends the search: a match as long as any can be.
    const auto consider = [&](std::size_t next) {
        if (source[next - 1] != last) return false;  // the cheap test first
        const std::size_t length = match_length(source, next);
        if (length > best.length) best = {length, next};
        return length == n_max;
    };
    const std::size_t limit = std::min(end, source.size());
    if (earliest) {
        for (std::size_t next = 1; next < limit; ++next) {
            if (consider(next)) break;
        }
    } else {
        for (std::size_t next = limit; next-- > 1;) {
            if (consider(next)) break;
        }
    }
    return best;
}

// In the reference, the place the last guess from it leads to wins ties: a text that repeats
// itself (a run of one token, a refrain) matches in many places, and only the place already
// being followed knows how far into the repetition the text is. Before any, the first place
// wins: a reference is quoted from its start onwards, so when the answer begins with a run of
// one token, the place as deep into the reference's run as the answer is into its own is the
// first one that matches (the most recent would guess the run already over).
LookupDrafter::Match LookupDrafter::reference_match() const {
    const std::vector<std::int32_t>& reference = *options_.reference;
    Match best = longest_match(reference, reference.size(), true);
    if (followed_ > 0) {
        const std::size_t next = followed_ + (text_.size() - followed_text_size_);
        if (next < reference.size()) {
            const std::size_t length = match_length(reference, next);
            if (length > 0 && length >= best.length) best = {length, next};
        }
    }
    return best;
}

void LookupDrafter::propose(std::size_t max, std::vector<std::int32_t>& draft) {
    draft.clear();
    if (max == 0 || text_.empty()) return;
    const auto n_min = static_cast<std::size_t>(options_.ngram_min);
    const auto n_max = static_cast<std::size_t>(options_.ngram_max);
    Match match;
    std::span<const std::int32_t> source;
    if (options_.reference) {
        match = reference_match();
        source = *options_.reference;
    }
    // In the text itself the continuation may start at its last token at the latest (the
    // suffix being matched ends there).
    if (match.length < n_max) {
        const Match in_text = longest_match(text_, text_.size(), false);
        if (in_text.length > match.length) {
            match = in_text;
            source = text_;
        }
    }
    if (match.length < n_min) return;
    if (source.data() != text_.data()) {
        followed_ = match.next;
        followed_text_size_ = text_.size();
    }
    const std::size_t count = std::min(max, source.size() - match.next);
    draft.insert(draft.end(), source.begin() + static_cast<std::ptrdiff_t>(match.next),
                 source.begin() + static_cast<std::ptrdiff_t>(match.next + count));
}

}  // namespace forge::llm
