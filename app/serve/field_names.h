// The Responses and Anthropic APIs are read by translating their body into the body of
// /v1/chat/completions and parsing that (openai_request.h). An error of that parse names a
// chat field ("max_tokens", "tools[0].function.parameters"); the client sent another
// ("max_output_tokens", "tools[0].input_schema"). renamed() gives the error its client's names.
#pragma once

#include "app/serve/api_error.h"

#include <array>
#include <span>
#include <string>

namespace forge::app::serve {

// A chat field (an ECMAScript regex over the param and the message) and its name in the
// client's API ($1... for the regex's groups).
struct FieldName {
    const char* chat;
    const char* client;
};

// Chat's tools nest the function ("tools[0].function.name", "tool_choice.function.name"); the
// Responses and Anthropic APIs' tools are flat ("tools[0].name", "tool_choice.name").
inline constexpr std::array<FieldName, 2> kFlatToolNames{{
    {R"(tools\[(\d+)\]\.function)", "tools[$1]"},
    {R"(tool_choice\.function)", "tool_choice"},
}};

// `error` with every chat field renamed, first match of `names` first.
ApiError renamed(const ApiError& error, std::span<const FieldName> names);

}  // namespace forge::app::serve
