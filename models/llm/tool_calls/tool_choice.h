// OpenAI's `tools` + `tool_choice` -> the grammar that makes the answer a call:
//
//   "auto"                                        -> nullptr (the model decides; parse its answer)
//   "none"                                        -> nullptr (render the prompt WITHOUT tools and
//                                                    do not parse calls: none can be produced)
//   "required"                                    -> one call of any tool (up to kMaxParallelCalls
//                                                    with parallel_tool_calls)
//   {"type": "function", "function": {"name": f}} -> one call of f
//
// The call is written in the model's own format (tool_format.h) with the function's
// `parameters` schema compiled by the JSON Schema compiler, so its arguments validate. Bad
// input throws grammar::SchemaError with the request path ("tools[1].function.parameters/...",
// "tool_choice"): serve answers 400.
//
//   auto choice = tool_calls::parse_tool_choice(body["tool_choice"], body["tools"]);
//   auto g = tool_calls::tool_call_grammar(format, body["tools"], choice, parallel);
//   if (g) options.constraint = std::make_shared<grammar::GrammarConstraint>(g, vocabulary);
#pragma once

#include "models/llm/grammar/grammar.h"
#include "models/llm/tool_calls/tool_format.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace forge::llm::tool_calls {

constexpr int kMaxParallelCalls = 8;

enum class ToolChoiceMode { Auto, None, Required, Function };

struct ToolChoice {
    ToolChoiceMode mode = ToolChoiceMode::Auto;
    std::string function;  // Function: its name
};

// `tool_choice` (absent/null = auto when there are tools, none without); checks a named
// function is among `tools`.
ToolChoice parse_tool_choice(const nlohmann::ordered_json& tool_choice, const nlohmann::ordered_json& tools);
// Checks the `tools` array's shape (type "function", a name, parameters an object schema).
void check_tools(const nlohmann::ordered_json& tools);

std::shared_ptr<const grammar::Grammar> tool_call_grammar(ToolFormat format, const nlohmann::ordered_json& tools,
                                                          const ToolChoice& choice, bool parallel_tool_calls);

}  // namespace forge::llm::tool_calls
