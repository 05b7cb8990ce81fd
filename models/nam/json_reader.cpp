#include "models/nam/json_reader.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <optional>

namespace forge::nam {

std::string JsonReader::child_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

void JsonReader::fail(const std::string& message) const {
    fail_format("{}: {}: {}", source_, path_.empty() ? "(root)" : path_, message);
}

void JsonReader::fail_field(const std::string& key, const std::string& message) const {
    fail_format("{}: {}: {}", source_, child_path(key), message);
}

bool JsonReader::has(const std::string& key) const {
    if (!value_->is_object()) return false;
    const auto it = value_->find(key);
    return it != value_->end() && !it->is_null();
}

const nlohmann::json& JsonReader::required(const std::string& key) const {
    if (!value_->is_object()) fail("expected a JSON object");
    const auto it = value_->find(key);
    if (it == value_->end() || it->is_null()) fail_field(key, "missing");
    return *it;
}

JsonReader JsonReader::child(const std::string& key) const {
    return JsonReader(required(key), source_, child_path(key));
}

JsonReader JsonReader::element(std::size_t index) const {
    if (!value_->is_array() || index >= value_->size()) fail(fmt::format("no element {}", index));
    return JsonReader((*value_)[index], source_, fmt::format("{}[{}]", path_, index));
}

std::size_t JsonReader::array_size() const {
    if (!value_->is_array()) fail("expected an array");
    return value_->size();
}

namespace {

// The JSON integer as an int, or nullopt when it is not one or does not fit: nlohmann's
// get<int>() would silently keep the low 32 bits (channels 2^32 + 4 would load as 4).
std::optional<int> as_int(const nlohmann::json& v) {
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())) return static_cast<int>(u);
        return std::nullopt;
    }
    if (!v.is_number_integer()) return std::nullopt;
    const auto i = v.get<std::int64_t>();
    if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max()) return std::nullopt;
    return static_cast<int>(i);
}

std::string describe(const nlohmann::json& v) {
    if (v.is_number_integer()) return fmt::format("{} (out of range)", v.dump());
    const std::string text = v.dump();
    return text.size() <= 40 ? text : text.substr(0, 40) + "...";
}

}  // namespace

int JsonReader::integer(const std::string& key) const {
    const auto& v = required(key);
    const std::optional<int> i = as_int(v);
    if (!i) fail_field(key, "expected an integer, got " + describe(v));
    return *i;
}

int JsonReader::integer_or(const std::string& key, int fallback) const {
    return has(key) ? integer(key) : fallback;
}

double JsonReader::number(const std::string& key) const {
    const auto& v = required(key);
    if (!v.is_number()) fail_field(key, "expected a number, got " + describe(v));
    return v.get<double>();
}

bool JsonReader::boolean(const std::string& key) const {
    const auto& v = required(key);
    if (!v.is_boolean()) fail_field(key, "expected true or false, got " + describe(v));
    return v.get<bool>();
}

bool JsonReader::boolean_or(const std::string& key, bool fallback) const {
    return has(key) ? boolean(key) : fallback;
}

std::string JsonReader::string(const std::string& key) const {
    const auto& v = required(key);
    if (!v.is_string()) fail_field(key, "expected a string, got " + describe(v));
    return v.get<std::string>();
}

std::vector<int> JsonReader::integers(const std::string& key) const {
    const JsonReader list = child(key);
    std::vector<int> values;
    for (std::size_t i = 0; i < list.array_size(); ++i) {
        const auto& v = list.value()[i];
        const std::optional<int> value = as_int(v);
        if (!value) list.fail(fmt::format("element {} is not an integer: {}", i, describe(v)));
        values.push_back(*value);
    }
    return values;
}

}  // namespace forge::nam
