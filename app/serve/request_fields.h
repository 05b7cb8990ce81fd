// Reading the fields of a request body, shared by the OpenAI and Ollama parsers
// (openai_request.h, ollama_request.h): a field is absent when missing or null, and a field of
// the wrong type or one forge cannot honour is a 400 naming it.
#pragma once

#include "app/serve/api_error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>

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

}  // namespace forge::app::serve
