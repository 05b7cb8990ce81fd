// JSON Schema -> grammar: the text a constrained generation produces is JSON that validates
// against the schema. Supported: type (one or a list), properties, required,
// additionalProperties (false, true or a schema; absent = false when properties are given, as
// OpenAI's strict mode), enum, const, items, minItems/maxItems, minLength/maxLength, pattern
// (the regex subset, regex.h), format (date, time, date-time, uuid), integer minimum/maximum
// and exclusive bounds, number minimum/maximum (integer-valued, inclusive), anyOf/oneOf
// (oneOf as anyOf), allOf with one schema, local $ref (#, #/$defs/..., #/definitions/...,
// recursion allowed), and annotation keywords (title, description, default, examples, ...),
// which constrain nothing. Anything else is a SchemaError naming the keyword and its JSON path:
// serve answers it with a 400, never with unconstrained text.
//
// Objects are written with their properties in the schema's order; whitespace between tokens
// is at most one space or one newline with up to 20 spaces/tabs of indent, and numbers have at
// most 16 integer and 16 fraction digits, so a constrained answer always ends.
//
//   auto g = grammar::compile_json_schema(schema_json);   // std::shared_ptr<const Grammar>
#pragma once

#include "core/error.h"
#include "models/llm/grammar/grammar.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string>

namespace forge::llm::grammar {

// An invalid or unsupported schema: `path` is the JSON Pointer of the offending place
// ("#/properties/age/minimum"), `what()` says what is wrong with it.
class SchemaError : public Error {
public:
    SchemaError(std::string path, const std::string& message);
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// A grammar whose sentences are the JSON texts valid under `schema`. Objects are written in
// the order of their `properties`: parse the schema as nlohmann::ordered_json to keep the
// order its author gave (a nlohmann::json has its keys sorted, and so will the output).
std::shared_ptr<const Grammar> compile_json_schema(const nlohmann::ordered_json& schema);
std::shared_ptr<const Grammar> compile_json_schema(const nlohmann::json& schema);
// A grammar for any JSON object (response_format json_object).
std::shared_ptr<const Grammar> json_object_grammar();

// For grammars that embed JSON (tool calls): the value rule of `schema` inside `builder`.
// `root` is the document local $refs resolve against.
Symbol json_schema_symbol(GrammarBuilder& builder, const nlohmann::ordered_json& schema, const nlohmann::ordered_json& root);
// JSON's optional whitespace between tokens (bounded, see above).
Symbol json_whitespace(GrammarBuilder& builder);

}  // namespace forge::llm::grammar
