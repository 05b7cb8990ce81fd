#include "models/llm/grammar/response_format.h"

#include <nlohmann/json.hpp>

namespace forge::llm::grammar {

using json = nlohmann::ordered_json;

namespace {

// A schema's SchemaError with its path under `where`:
// "#/properties/x" -> "response_format.json_schema.schema/properties/x".
std::shared_ptr<const Grammar> compile_schema_at(const json& schema, const std::string& where) {
    try {
        return compile_json_schema(schema);
    } catch (const SchemaError& e) {
        const std::string message = e.what();
        const std::string prefix = "JSON schema at " + e.path() + ": ";
        const std::string reason = message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
        throw SchemaError(where + e.path().substr(1), reason);
    }
}

}  // namespace

std::shared_ptr<const Grammar> compile_response_format(const json& format) {
    const std::string where = "response_format";
    if (!format.is_object() || !format.contains("type") || !format["type"].is_string())
        throw SchemaError(where, "must be an object with a \"type\" (text, json_object or json_schema)");
    const std::string type = format["type"].get<std::string>();
    if (type == "text") return nullptr;
    if (type == "json_object") {
        // llama-server's extension: {"type": "json_object", "schema": {...}} is JSON valid under it.
        if (format.contains("schema") && !format["schema"].is_null()) return compile_schema_at(format["schema"], where + ".schema");
        return json_object_grammar();
    }
    if (type != "json_schema") throw SchemaError(where + ".type", "unknown type \"" + type + "\" (text, json_object or json_schema)");
    if (!format.contains("json_schema") || !format["json_schema"].is_object())
        throw SchemaError(where + ".json_schema", "missing: an object with \"name\" and \"schema\"");
    const json& spec = format["json_schema"];
    if (!spec.contains("schema")) return json_object_grammar();  // OpenAI: no schema = any object
    return compile_schema_at(spec["schema"], where + ".json_schema.schema");
}

std::shared_ptr<const Grammar> compile_json_schema_field(const json& schema, const std::string& field) { return compile_schema_at(schema, field); }

}  // namespace forge::llm::grammar

namespace forge::llm::grammar {

std::shared_ptr<const Grammar> compile_response_format(const nlohmann::json& response_format) {
    return compile_response_format(json::parse(response_format.dump()));
}

}  // namespace forge::llm::grammar
