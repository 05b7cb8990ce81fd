// Typed access to a GGUF file's metadata: the one way every reader (llm hyperparameters and
// tokenizer, the Parakeet configuration and vocabulary, quantize) looks up a key.
//
// A lookup names the type it needs; the file's exact tag may be any of that family (writers
// disagree: one stores a count as u32, another as i64), so "integer" accepts u8..i64 and
// "number" accepts any integer or float. Every error is a FormatError naming the file and the
// key, and for a wrong type both the expected and the found type:
//
//   model.gguf: missing metadata key 'llama.block_count'
//   model.gguf: metadata 'llama.block_count' must be an integer, found string "two"
//   model.gguf: metadata 'llama.block_count' = 0 must be at least 1
//
// The `_or` lookups return the default when the key is absent (the default is not range
// checked: it is the reader's own choice, not the file's).
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/gguf/value.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace forge::gguf {

// The closed interval a number read from a file must lie in; the default admits every finite
// value (so a NaN or an infinity is always out of range).
template <typename T>
struct Range {
    T min = std::numeric_limits<T>::lowest();
    T max = std::numeric_limits<T>::max();

    bool contains(T v) const { return v >= min && v <= max; }
    static Range at_least(T min) { return {min, std::numeric_limits<T>::max()}; }
};

class Metadata {
public:
    explicit Metadata(const GgufFile& file) : file_(file) {}

    const std::string& source() const { return file_.source(); }
    bool has(std::string_view key) const { return file_.find(key) != nullptr; }

    std::int64_t integer(std::string_view key, Range<std::int64_t> range = {}) const;
    std::int64_t integer_or(std::string_view key, std::int64_t fallback, Range<std::int64_t> range = {}) const;

    double number(std::string_view key, Range<double> range = {}) const;
    double number_or(std::string_view key, double fallback, Range<double> range = {}) const;

    bool boolean(std::string_view key) const;
    bool boolean_or(std::string_view key, bool fallback) const;

    const std::string& string(std::string_view key) const;
    std::string string_or(std::string_view key, std::string fallback) const;

    // An array whose items are all of `element` (an empty array may carry any element type:
    // it holds no item of the wrong one).
    const Array& array(std::string_view key, ValueType element) const;
    // An array of any element type, for a reader that checks each item itself.
    const Array& array(std::string_view key) const;

private:
    const Value& value(std::string_view key) const;
    [[noreturn]] void wrong_type(std::string_view key, std::string_view expected, const Value& found) const;

    const GgufFile& file_;
};

}  // namespace forge::gguf
