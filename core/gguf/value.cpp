#include "core/gguf/value.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <limits>

namespace forge::gguf {

// The variant's alternatives must stay in GGUF tag order for Value::type() to be right.
static_assert(std::is_same_v<std::variant_alternative_t<6, Value::Storage>, float>);
static_assert(std::is_same_v<std::variant_alternative_t<9, Value::Storage>, Array>);
static_assert(std::is_same_v<std::variant_alternative_t<12, Value::Storage>, double>);

std::string_view value_type_name(ValueType type) {
    switch (type) {
        case ValueType::U8: return "u8";
        case ValueType::I8: return "i8";
        case ValueType::U16: return "u16";
        case ValueType::I16: return "i16";
        case ValueType::U32: return "u32";
        case ValueType::I32: return "i32";
        case ValueType::F32: return "f32";
        case ValueType::Bool: return "bool";
        case ValueType::String: return "string";
        case ValueType::Array: return "array";
        case ValueType::U64: return "u64";
        case ValueType::I64: return "i64";
        case ValueType::F64: return "f64";
    }
    return "?";
}

std::size_t value_type_size(ValueType type) {
    switch (type) {
        case ValueType::U8: case ValueType::I8: case ValueType::Bool: return 1;
        case ValueType::U16: case ValueType::I16: return 2;
        case ValueType::U32: case ValueType::I32: case ValueType::F32: return 4;
        case ValueType::U64: case ValueType::I64: case ValueType::F64: return 8;
        case ValueType::String: case ValueType::Array: return 0;
    }
    return 0;
}

bool is_valid_value_type(std::uint32_t tag) { return tag <= static_cast<std::uint32_t>(ValueType::F64); }

std::optional<std::int64_t> Value::as_int() const {
    return std::visit(
        [](const auto& v) -> std::optional<std::int64_t> {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::uint64_t>) {
                if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
                return static_cast<std::int64_t>(v);
            } else if constexpr (std::is_integral_v<T>) {
                return static_cast<std::int64_t>(v);
            } else {
                return std::nullopt;
            }
        },
        storage_);
}

std::optional<double> Value::as_double() const {
    return std::visit(
        [](const auto& v) -> std::optional<double> {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_arithmetic_v<T>) return static_cast<double>(v);
            return std::nullopt;
        },
        storage_);
}

namespace {

std::string quoted(const std::string& text, std::size_t max_chars) {
    // Long strings (chat templates) are cut; control characters are escaped so that one
    // value stays on one line.
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size() && i < max_chars; ++i) {
        const char c = text[i];
        if (c == '\n') out += "\\n";
        else if (c == '"') out += "\\\"";
        else if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        else out += c;
    }
    if (text.size() > max_chars) out += fmt::format("...\" ({} bytes)", text.size());
    else out += "\"";
    return out;
}

}  // namespace

std::string Value::to_string(std::size_t max_items) const {
    return std::visit(
        [&](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                return quoted(v, 120);
            } else if constexpr (std::is_same_v<T, Array>) {
                std::string out = "[";
                for (std::size_t i = 0; i < v.items.size() && i < max_items; ++i) {
                    if (i > 0) out += ", ";
                    out += v.items[i].to_string(max_items);
                }
                if (v.items.size() > max_items) out += fmt::format(", ... ({} {})", v.items.size(), value_type_name(v.element_type));
                return out + "]";
            } else if constexpr (std::is_same_v<T, bool>) {
                return v ? "true" : "false";
            } else if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int8_t>) {
                return fmt::format("{}", static_cast<int>(v));
            } else {
                return fmt::format("{}", v);
            }
        },
        storage_);
}

bool operator==(const Array& a, const Array& b) { return a.element_type == b.element_type && a.items == b.items; }

bool operator==(const Value& a, const Value& b) {
    // Floats compare by bit pattern, so a NaN read from a file equals itself after a round trip.
    if (a.type() != b.type()) return false;
    if (const auto* x = a.get_if<float>()) return std::bit_cast<std::uint32_t>(*x) == std::bit_cast<std::uint32_t>(*b.get_if<float>());
    if (const auto* x = a.get_if<double>()) return std::bit_cast<std::uint64_t>(*x) == std::bit_cast<std::uint64_t>(*b.get_if<double>());
    return a.storage_ == b.storage_;
}

}  // namespace forge::gguf
