#include "models/llm/tool_calls/tool_choice.h"

#include "models/llm/grammar/grammar_limits.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/matcher.h"

namespace forge::llm::tool_calls {

using json = nlohmann::ordered_json;
using grammar::GrammarBuilder;
using grammar::SchemaError;
using grammar::Symbol;

namespace {

// {"type": "function", ...}: a "type" of any JSON type compares with the string; none is
// converted (json::value("type", "") would throw nlohmann's type_error, a 500, for a number).
bool is_function_object(const json& j) { return j.is_object() && j.contains("type") && j["type"] == "function"; }

}  // namespace

void check_tools(const json& tools) {
    if (tools.is_null()) return;
    if (!tools.is_array()) throw SchemaError("tools", "must be an array");
    for (std::size_t i = 0; i < tools.size(); ++i) {
        const std::string at = "tools[" + std::to_string(i) + "]";
        const json& t = tools[i];
        if (!is_function_object(t)) throw SchemaError(at + ".type", "must be \"function\"");
        if (!t.contains("function") || !t["function"].is_object()) throw SchemaError(at + ".function", "missing");
        const json& f = t["function"];
        if (!f.contains("name") || !f["name"].is_string() || f["name"].get<std::string>().empty())
            throw SchemaError(at + ".function.name", "missing");
        if (f.contains("parameters") && !f["parameters"].is_object())
            throw SchemaError(at + ".function.parameters", "must be a JSON Schema object");
    }
}

ToolChoice parse_tool_choice(const json& choice, const json& tools) {
    check_tools(tools);
    const bool have_tools = tools.is_array() && !tools.empty();
    if (choice.is_null()) return {have_tools ? ToolChoiceMode::Auto : ToolChoiceMode::None, ""};
    if (choice.is_string()) {
        const std::string mode = choice.get<std::string>();
        if (mode == "auto") return {ToolChoiceMode::Auto, ""};
        if (mode == "none") return {ToolChoiceMode::None, ""};
        if (mode == "required") {
            if (!have_tools) throw SchemaError("tool_choice", "\"required\" needs a non-empty tools array");
            return {ToolChoiceMode::Required, ""};
        }
        throw SchemaError("tool_choice", "must be \"auto\", \"none\", \"required\" or a named function, not \"" + mode + "\"");
    }
    if (!is_function_object(choice) || !choice.contains("function") ||
        !choice["function"].is_object() || !choice["function"].contains("name") || !choice["function"]["name"].is_string())
        throw SchemaError("tool_choice", "a named choice is {\"type\": \"function\", \"function\": {\"name\": ...}}");
    const std::string name = choice["function"]["name"].get<std::string>();
    for (const json& t : have_tools ? tools : json::array()) {
        if (t["function"]["name"] == name) return {ToolChoiceMode::Function, name};
    }
    throw SchemaError("tool_choice.function.name", "\"" + name + "\" is not among the tools");
}

namespace {

// One call of `tool` in the model's format, e.g. <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>.
GrammarBuilder::Sequence call_of(GrammarBuilder& b, ToolFormat format, const json& tool, std::size_t index) {
    const json& f = tool["function"];
    const json parameters = f.contains("parameters") ? f["parameters"] : json{{"type", "object"}};
    Symbol arguments;
    try {
        arguments = grammar::json_schema_symbol(b, parameters, parameters);
    } catch (const SchemaError& e) {
        const std::string prefix = "JSON schema at " + e.path() + ": ";
        const std::string message = e.what();
        throw SchemaError("tools[" + std::to_string(index) + "].function.parameters" + e.path().substr(1),
                          message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message);
    }
    const Symbol ws = grammar::json_whitespace(b);
    const bool hermes = format == ToolFormat::Hermes;
    GrammarBuilder::Sequence call = hermes ? b.literal("<tool_call>") : GrammarBuilder::Sequence{};
    if (hermes) call.push_back(ws);
    auto add = [&](const GrammarBuilder::Sequence& s) { call.insert(call.end(), s.begin(), s.end()); };
    add(b.literal("{"));
    call.push_back(ws);
    add(b.literal("\"name\""));
    call.push_back(ws);
    add(b.literal(":"));
    call.push_back(ws);
    add(b.literal(json(f["name"].get<std::string>()).dump()));
    call.push_back(ws);
    add(b.literal(","));
    call.push_back(ws);
    add(b.literal(hermes ? "\"arguments\"" : "\"parameters\""));
    call.push_back(ws);
    add(b.literal(":"));
    call.push_back(ws);
    call.push_back(arguments);
    call.push_back(ws);
    add(b.literal("}"));
    if (hermes) {
        call.push_back(ws);
        add(b.literal("</tool_call>"));
    }
    return call;
}

}  // namespace

std::shared_ptr<const grammar::Grammar> tool_call_grammar(ToolFormat format, const json& tools, const ToolChoice& choice,
                                                          bool parallel_tool_calls) {
    if (choice.mode == ToolChoiceMode::Auto || choice.mode == ToolChoiceMode::None) return nullptr;
    check_tools(tools);
    try {
        GrammarBuilder b;
        std::vector<GrammarBuilder::Sequence> alternatives;
        for (std::size_t i = 0; i < tools.size(); ++i) {
            if (choice.mode == ToolChoiceMode::Function && tools[i]["function"]["name"] != choice.function) continue;
            alternatives.push_back(call_of(b, format, tools[i], i));
        }
        const Symbol one = b.rule("call", std::move(alternatives));
        // Several calls (Hermes only: Llama's JSON format writes one): separated by whitespace.
        const int most = parallel_tool_calls && format == ToolFormat::Hermes ? kMaxParallelCalls : 1;
        const Symbol ws = grammar::json_whitespace(b);
        const Symbol calls = b.rule("calls", {{one, b.repeat("more-calls", {ws, one}, 0, most - 1)}});
        const Symbol root = b.rule("root", {{calls}});
        auto g = std::make_shared<const grammar::Grammar>(std::move(b).build(root.index));
        grammar::check_first_state(g);
        return g;
    } catch (const grammar::GrammarLimitError& e) {  // the tools together (names, schemas) are too large
        throw SchemaError("tools", e.what());
    }
}

}  // namespace forge::llm::tool_calls
