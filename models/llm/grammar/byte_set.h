// A set of byte values, 256 bits: the alphabet of forge's grammars is bytes (UTF-8 is compiled
// into byte sequences, see utf8_ranges.h), so one test per byte decides a match.
#pragma once

#include <array>
#include <cstdint>

namespace forge::llm::grammar {

class ByteSet {
public:
    void add(std::uint8_t b) { words_[b >> 6] |= std::uint64_t{1} << (b & 63); }
    void add_range(std::uint8_t first, std::uint8_t last) {
        for (int b = first; b <= last; ++b) add(static_cast<std::uint8_t>(b));
    }
    bool contains(std::uint8_t b) const { return (words_[b >> 6] >> (b & 63)) & 1; }
    bool empty() const { return (words_[0] | words_[1] | words_[2] | words_[3]) == 0; }
    friend bool operator==(const ByteSet&, const ByteSet&) = default;
    friend auto operator<=>(const ByteSet&, const ByteSet&) = default;

private:
    std::array<std::uint64_t, 4> words_{};
};

}  // namespace forge::llm::grammar
