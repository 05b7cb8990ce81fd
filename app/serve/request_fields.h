// Reading the fields of a request body that another API's translation (responses_api.h,
// anthropic_api.h) takes apart itself, with errors that name the field by its path
// ("input[2].call_id").
#pragma once

#include "app/serve/api_error.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

namespace forge::app::serve {

// `object`'s member `name`, or nullptr when it is absent or null.
const nlohmann::ordered_json* member(const nlohmann::ordered_json& object, const char* name);
// The member `name` of `object` (at path `at`, "" for the body) that must be there.
const nlohmann::ordered_json& required_member(const nlohmann::ordered_json& object, const std::string& at, const char* name);
// "at.name", or "name" at the top.
std::string path_of(const std::string& at, const char* name);
// A member that must be a string / a boolean when present.
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
// 400 "'param' must be <expected>".
ApiError not_a(const std::string& param, const char* expected);
// 400 for a feature forge does not have (code unsupported_parameter).
ApiError not_supported(const std::string& param, const std::string& what);

}  // namespace forge::app::serve
