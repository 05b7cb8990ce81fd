// A compiled PCRE2 pattern (RAII) in UTF + UCP mode, JIT-compiled: \p{L}, \p{N} and \s mean
// the Unicode classes that Hugging Face's (Rust `regex`/`onig`) pre-tokenizer patterns mean.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

class Pcre2Regex {
public:
    explicit Pcre2Regex(std::string pattern);  // throws forge::Error with PCRE2's message and offset
    Pcre2Regex(Pcre2Regex&&) noexcept;
    Pcre2Regex& operator=(Pcre2Regex&&) noexcept;
    ~Pcre2Regex();

    // Splits valid UTF-8 `text` into the pieces the pattern matches and the unmatched runs
    // between them, in order, covering all of `text` (llama.cpp's unicode_regex_split_stl).
    void split(std::string_view text, std::vector<std::string_view>& pieces) const;

    const std::string& pattern() const { return pattern_; }

private:
    struct Compiled;
    std::string pattern_;
    std::unique_ptr<Compiled> compiled_;
};

}  // namespace forge::llm
