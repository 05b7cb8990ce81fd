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

// A piece of a chat field's name and its spelling in the client's API. In `chat`, '#' stands
// for a run of digits (an index: "messages[#]"). A param is matched as it is quoted in the
// messages ("'stop" matches the param "stop" and the message's 'stop').
struct FieldName {
    const char* chat;
    const char* client;
};

// Chat's tools nest the function ("tools[0].function.name", "tool_choice.function.name"); the
// Responses and Anthropic APIs' tools are flat ("tools[0].name", "tool_choice.name").
inline constexpr std::array<FieldName, 1> kFlatToolNames{{{".function", ""}}};

// `error` with its param and message renamed, by each of `names` in turn.
ApiError renamed(const ApiError& error, std::span<const FieldName> names);

}  // namespace forge::app::serve
