// Reading a .nam file's JSON with errors that say where: every accessor knows the file it
// came from and its own path inside the document ("config.layers[1].dilations"), so a bad
// or missing field becomes one FormatError naming both.
#pragma once

#include "core/error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace forge::nam {

class JsonReader {
public:
    JsonReader(const nlohmann::json& value, std::string source, std::string path)
        : value_(&value), source_(std::move(source)), path_(std::move(path)) {}

    const nlohmann::json& value() const { return *value_; }
    const std::string& source() const { return source_; }
    const std::string& path() const { return path_; }

    bool has(const std::string& key) const;  // present and not null
    JsonReader child(const std::string& key) const;  // required
    JsonReader element(std::size_t index) const;
    std::size_t array_size() const;  // requires an array

    int integer(const std::string& key) const;
    int integer_or(const std::string& key, int fallback) const;
    double number(const std::string& key) const;
    bool boolean(const std::string& key) const;
    bool boolean_or(const std::string& key, bool fallback) const;
    std::string string(const std::string& key) const;
    std::vector<int> integers(const std::string& key) const;

    // A FormatError "<source>: <path>[.key]: <message>".
    [[noreturn]] void fail(const std::string& message) const;
    [[noreturn]] void fail_field(const std::string& key, const std::string& message) const;

private:
    std::string child_path(const std::string& key) const;
    const nlohmann::json& required(const std::string& key) const;

    const nlohmann::json* value_;
    std::string source_;
    std::string path_;
};

}  // namespace forge::nam
