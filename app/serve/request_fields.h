// Reading the fields of a request body, shared by the OpenAI and Ollama parsers
// (openai_request.h, ollama_request.h): a field is absent when missing or null, and a field of
// the wrong type or one forge cannot honour is a 400 naming it.
#pragma once

#include "app/serve/api_error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

namespace forge::app::serve {

// A field's value, or nullptr when it is absent or null (both APIs treat both as "not given").
inline const nlohmann::ordered_json* field(const nlohmann::ordered_json& body, const char* name) {
    const auto it = body.find(name);
    return it == body.end() || it->is_null() ? nullptr : &*it;
}

inline ApiError wrong_type(const std::string& param, const char* expected) {
    return invalid_request(fmt::format("'{}' must be {}", param, expected), param);
}

inline ApiError unsupported(const std::string& param, const std::string& why) {
    return invalid_request(fmt::format("'{}' is not supported by forge: {}", param, why), param, "unsupported_parameter");
}

// Reading the bodies that the Responses and Anthropic translations take apart themselves
// (responses_api.h, anthropic_api.h), with errors that name the field by its path
// ("input[2].call_id"): request_fields.cpp.

// The member `name` of `object` (at path `at`, "" for the body) that must be there.
const nlohmann::ordered_json& required_member(const nlohmann::ordered_json& object, const std::string& at, const char* name);
// "at.name", or "name" at the top.
std::string path_of(const std::string& at, const char* name);
// A member that must be a string when present (or always, when `required`); "" when absent.
std::string string_member(const nlohmann::ordered_json& object, const std::string& at, const char* name, bool required);
// Call `visit(item, path)` for each item of the array `list` at `at` ("tools" -> "tools[2]"),
// each of which must be an object.
void for_each_object(const nlohmann::ordered_json& list, const std::string& at,
                     const std::function<void(const nlohmann::ordered_json& item, const std::string& path)>& visit);
// Content as a string, or as an array of text parts whose type is one of `types` (each with a
// "text"), concatenated: Responses' input_text / output_text, Anthropic's text blocks.
std::string text_parts(const nlohmann::ordered_json& content, const std::string& at, std::initializer_list<std::string_view> types);
// Copy the members named `keys` that `from` has (not null) into `to`: fields that mean the
// same in the client's API and in chat's.
void copy_members(const nlohmann::ordered_json& from, nlohmann::ordered_json& to, std::initializer_list<const char*> keys);

}  // namespace forge::app::serve
