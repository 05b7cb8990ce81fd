#include "models/nam/json_reader.h"

#include <fmt/format.h>

namespace forge::nam {

std::string JsonReader::child_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

void JsonReader::fail(const std::string& message) const {
    throw FormatError(fmt::format("{}: {}: {}", source_, path_.empty() ? "(root)" : path_, message));
}

void JsonReader::fail_field(const std::string& key, const std::string& message) const {
    throw FormatError(fmt::format("{}: {}: {}", source_, child_path(key), message));
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

int JsonReader::integer(const std::string& key) const {
    const auto& v = required(key);
    if (!v.is_number_integer()) fail_field(key, "expected an integer, got " + v.dump());
    return v.get<int>();
}

int JsonReader::integer_or(const std::string& key, int fallback) const {
    return has(key) ? integer(key) : fallback;
}

double JsonReader::number(const std::string& key) const {
    const auto& v = required(key);
    if (!v.is_number()) fail_field(key, "expected a number, got " + v.dump());
    return v.get<double>();
}

bool JsonReader::boolean(const std::string& key) const {
    const auto& v = required(key);
    if (!v.is_boolean()) fail_field(key, "expected true or false, got " + v.dump());
    return v.get<bool>();
}

bool JsonReader::boolean_or(const std::string& key, bool fallback) const {
    return has(key) ? boolean(key) : fallback;
}

std::string JsonReader::string(const std::string& key) const {
    const auto& v = required(key);
    if (!v.is_string()) fail_field(key, "expected a string, got " + v.dump());
    return v.get<std::string>();
}

std::vector<int> JsonReader::integers(const std::string& key) const {
    const JsonReader list = child(key);
    std::vector<int> values;
    for (std::size_t i = 0; i < list.array_size(); ++i) {
        const auto& v = list.value()[i];
        if (!v.is_number_integer()) list.fail(fmt::format("element {} is not an integer", i));
        values.push_back(v.get<int>());
    }
    return values;
}

}  // namespace forge::nam
