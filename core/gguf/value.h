// One GGUF metadata value: a scalar, a string, or an array of values (arrays may nest).
// The type tags and their numbering are GGUF's (ggml/docs/gguf.md, enum gguf_type); a value
// keeps its exact tag so that a file read and written back is byte-identical.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace forge::gguf {

enum class ValueType : std::uint32_t {
    U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7,
    String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};

std::string_view value_type_name(ValueType type);
// Bytes one value of a fixed-size type takes in a file; 0 for String and Array.
std::size_t value_type_size(ValueType type);
bool is_valid_value_type(std::uint32_t tag);

class Value;

// An array remembers its element type even when empty (GGUF stores it).
struct Array {
    ValueType element_type = ValueType::U8;
    std::vector<Value> items;
};

class Value {
public:
    using Storage = std::variant<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
                                 std::int32_t, float, bool, std::string, Array, std::uint64_t,
                                 std::int64_t, double>;

    Value() = default;
    template <typename T>
        requires std::is_constructible_v<Storage, T>
    Value(T value) : storage_(std::move(value)) {}  // NOLINT: implicit, like std::variant
    Value(const char* text) : storage_(std::string(text)) {}  // NOLINT

    // The variant alternatives are declared in GGUF tag order, so the index is the tag.
    ValueType type() const { return static_cast<ValueType>(storage_.index()); }
    const Storage& storage() const { return storage_; }

    template <typename T>
    const T* get_if() const { return std::get_if<T>(&storage_); }
    const std::string* string() const { return get_if<std::string>(); }
    const Array* array() const { return get_if<Array>(); }

    // Any integer type (or bool) that fits, else nullopt.
    std::optional<std::int64_t> as_int() const;
    // Any numeric type, as double.
    std::optional<double> as_double() const;

    // Human-readable text; arrays longer than `max_items` are summarized.
    std::string to_string(std::size_t max_items = 8) const;

    friend bool operator==(const Value& a, const Value& b);

private:
    Storage storage_;
};

bool operator==(const Array& a, const Array& b);

}  // namespace forge::gguf
