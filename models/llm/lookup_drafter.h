// Draft tokens for speculative decoding without a draft model: n-gram lookup (what llama.cpp's
// llama-lookup and "prompt lookup decoding" do). When the text so far ends with a few tokens
// that appeared before — in the prompt, in what has been generated, or in a reference text
// (`--lookup-file`: a document the answer will quote, the previous version of code being
// edited) — the tokens that followed them then are a cheap guess at what follows now. The
// target model checks the guess (models/llm/speculator.h), so a wrong guess costs time, never
// correctness.
//
// The longest matching suffix wins, from n_max tokens down to n_min; among equally long
// matches the reference's (the user gave it to be quoted: there the place being followed,
// else the first), then the most recent one in the text. A linear scan over
// the tokens: tens of microseconds for tens of thousands of tokens, nothing next to a forward
// pass, and no index to keep in step when the text is rolled back or reused.
#pragma once

#include "models/llm/tokenizer/tokenizer.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace forge::llm {

struct LookupOptions {
    std::int64_t ngram_min = 2;  // the shortest suffix worth trusting
    std::int64_t ngram_max = 4;  // the longest suffix compared
    // Optional reference tokens searched after the text itself (--lookup-file, tokenized once).
    std::shared_ptr<const std::vector<std::int32_t>> reference;
};

// A reference text's tokens as the drafter compares them: no BOS, special-token text left as
// text (it is a document to quote, not a prompt).
std::shared_ptr<const std::vector<std::int32_t>> lookup_reference(const Tokenizer& tokenizer, std::string_view text);

class LookupDrafter {
public:
    // `capacity`: the most tokens the text will hold (a context), reserved up front so that
    // decoding does not allocate.
    LookupDrafter(const LookupOptions& options, std::int64_t capacity);

    void reset(std::span<const std::int32_t> text);  // the sequence so far
    void push(std::int32_t token);                   // one more token of it
    const std::vector<std::int32_t>& text() const { return text_; }

    // Up to `max` tokens that may come next, into `draft` (cleared first; empty when nothing matches).
    void propose(std::size_t max, std::vector<std::int32_t>& draft);

private:
    struct Match {
        std::size_t length = 0;  // matching suffix tokens
        std::size_t next = 0;    // where the continuation starts in the source
    };
    std::size_t match_length(std::span<const std::int32_t> source, std::size_t next) const;
    // The longest match of the text's suffix in `source` whose continuation starts before `end`:
    // among equally long ones the first when `earliest`, else the most recent.
    Match longest_match(std::span<const std::int32_t> source, std::size_t end, bool earliest) const;
    Match reference_match() const;

    LookupOptions options_;
    std::vector<std::int32_t> text_;
    // The reference position the last guess from it started at (0: none yet), and the text's
    // length then: the text has moved on by as many tokens since.
    std::size_t followed_ = 0, followed_text_size_ = 0;
};

}  // namespace forge::llm
