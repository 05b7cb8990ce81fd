#include "app/serve/request_fields.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace forge::app::serve {

using json = nlohmann::ordered_json;

std::string path_of(const std::string& at, const char* name) { return at.empty() ? std::string(name) : at + "." + name; }

const json& required_member(const json& object, const std::string& at, const char* name) {
    const json* value = field(object, name);
    if (value == nullptr) throw invalid_request(fmt::format("'{}' is required", path_of(at, name)), path_of(at, name));
    return *value;
}

std::string string_member(const json& object, const std::string& at, const char* name, bool required) {
    const json* value = required ? &required_member(object, at, name) : field(object, name);
    if (value == nullptr) return {};
    if (!value->is_string()) throw wrong_type(path_of(at, name), "a string");
    return value->get<std::string>();
}

void for_each_object(const json& list, const std::string& at, const std::function<void(const json& item, const std::string& path)>& visit) {
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string path = fmt::format("{}[{}]", at, i);
        if (!list[i].is_object()) throw wrong_type(path, "an object");
        visit(list[i], path);
    }
}

std::string text_parts(const json& content, const std::string& at, std::initializer_list<std::string_view> types) {
    if (content.is_string()) return content.get<std::string>();
    if (!content.is_array()) throw wrong_type(at, fmt::format("a string or an array of {} parts", fmt::join(types, " / ")).c_str());
    std::string text;
    for_each_object(content, at, [&](const json& item, const std::string& part) {
        const std::string type = string_member(item, part, "type", true);
        if (std::find(types.begin(), types.end(), type) == types.end())
            throw unsupported(part + ".type", fmt::format("parts of type '{}' here (only {})", type, fmt::join(types, ", ")));
        text += string_member(item, part, "text", true);
    });
    return text;
}

void copy_members(const json& from, json& to, std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
        if (const json* value = field(from, key)) to[key] = *value;
    }
}

}  // namespace forge::app::serve
