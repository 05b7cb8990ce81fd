// The filters (x | trim), tests (x is defined), methods (s.startswith(p), d.items()) and
// global functions (range, namespace, raise_exception) that chat templates use, with
// Jinja2's / Python's semantics. Each returns nullopt for a name it does not know, so the
// interpreter can report the unknown construct with its position.
#pragma once

#include "models/llm/chat_template/value.h"

#include <optional>
#include <string_view>

namespace forge::llm::jinja {

std::optional<Value> apply_filter(std::string_view name, const Value& input, CallArgs& args);
std::optional<bool> apply_test(std::string_view name, const Value& input, CallArgs& args);
// A method of a string, list or dict bound to `self` (a Function value), or nullopt.
std::optional<Value> bound_method(const Value& self, std::string_view name);
// Functions every template sees: range, namespace, raise_exception, strftime_now.
Dict global_functions();

// Python str.strip / lstrip / rstrip with an optional set of characters (default whitespace).
std::string strip(std::string_view s, const Value& chars, bool left, bool right);

}  // namespace forge::llm::jinja
