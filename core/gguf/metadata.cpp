#include "core/gguf/metadata.h"

#include "core/error.h"

#include <fmt/format.h>

namespace forge::gguf {

namespace {

// "u32", or "array[f32]" for an array: what a value is, in the words `forge gguf info` uses.
std::string type_text(const Value& value) {
    if (const Array* array = value.array()) return fmt::format("array[{}]", value_type_name(array->element_type));
    return std::string(value_type_name(value.type()));
}

// "in [1, 4096]", or one side only ("at least 1") when the other is the type's own limit.
template <typename T>
std::string range_text(const Range<T>& range) {
    const bool has_min = range.min != std::numeric_limits<T>::lowest();
    const bool has_max = range.max != std::numeric_limits<T>::max();
    if (has_min && !has_max) return fmt::format("at least {}", range.min);
    if (has_max && !has_min) return fmt::format("at most {}", range.max);
    if (has_min && has_max) return fmt::format("in [{}, {}]", range.min, range.max);
    return "finite";
}

template <typename T>
T checked(const Metadata& meta, std::string_view key, T v, const Range<T>& range) {
    check_format(range.contains(v), "{}: metadata '{}' = {} must be {}", meta.source(), key, v, range_text(range));
    return v;
}

}  // namespace

const Value& Metadata::value(std::string_view key) const {
    const Value* v = file_.find(key);
    check_format(v != nullptr, "{}: missing metadata key '{}'", source(), key);
    return *v;
}

void Metadata::wrong_type(std::string_view key, std::string_view expected, const Value& found) const {
    fail_format("{}: metadata '{}' must be {}, found {} {}", source(), key, expected, type_text(found),
                found.to_string());
}

std::int64_t Metadata::integer(std::string_view key, Range<std::int64_t> range) const {
    const Value& v = value(key);
    // as_int() also takes a bool and declines a u64 beyond i64: neither is a count.
    const auto number = v.type() == ValueType::Bool ? std::nullopt : v.as_int();
    if (!number) wrong_type(key, "an integer", v);
    return checked(*this, key, *number, range);
}

std::int64_t Metadata::integer_or(std::string_view key, std::int64_t fallback, Range<std::int64_t> range) const {
    return has(key) ? integer(key, range) : fallback;
}

double Metadata::number(std::string_view key, Range<double> range) const {
    const Value& v = value(key);
    const auto number = v.type() == ValueType::Bool ? std::nullopt : v.as_double();
    if (!number) wrong_type(key, "a number", v);
    return checked(*this, key, *number, range);
}

double Metadata::number_or(std::string_view key, double fallback, Range<double> range) const {
    return has(key) ? number(key, range) : fallback;
}

bool Metadata::boolean(std::string_view key) const {
    const Value& v = value(key);
    const bool* flag = v.get_if<bool>();
    if (flag == nullptr) wrong_type(key, "a bool", v);
    return *flag;
}

bool Metadata::boolean_or(std::string_view key, bool fallback) const {
    return has(key) ? boolean(key) : fallback;
}

const std::string& Metadata::string(std::string_view key) const {
    const Value& v = value(key);
    const std::string* text = v.string();
    if (text == nullptr) wrong_type(key, "a string", v);
    return *text;
}

std::string Metadata::string_or(std::string_view key, std::string fallback) const {
    return has(key) ? string(key) : fallback;
}

const Array& Metadata::array(std::string_view key, ValueType element) const {
    const Value& v = value(key);
    const Array* items = v.array();
    if (items == nullptr || (items->element_type != element && !items->items.empty())) {
        wrong_type(key, fmt::format("array[{}]", value_type_name(element)), v);
    }
    return *items;
}

const Array& Metadata::array(std::string_view key) const {
    const Value& v = value(key);
    if (v.array() == nullptr) wrong_type(key, "an array", v);
    return *v.array();
}

}  // namespace forge::gguf
