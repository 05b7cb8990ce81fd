// OpenAI's `response_format` -> the grammar that enforces it (nullptr: no constraint).
//
//   {"type": "text"}                                        -> nullptr
//   {"type": "json_object"}                                 -> any JSON object
//   {"type": "json_object", "schema": {...}}                -> JSON valid under the schema (llama-server's extension)
//   {"type": "json_schema", "json_schema": {"name": "...", "schema": {...}, "strict": true}}
//                                                           -> JSON valid under the schema
//
// Bad or unsupported input throws SchemaError whose path() starts with "response_format"
// (serve: 400 with param = that path). A compiled grammar is immutable: cache it per schema
// text and share it between requests; make one GrammarConstraint per request:
//
//   auto grammar = grammar::compile_response_format(body["response_format"]);
//   if (grammar) options.constraint = std::make_shared<grammar::GrammarConstraint>(grammar, vocabulary);
#pragma once

#include "models/llm/grammar/grammar.h"
#include "models/llm/grammar/json_schema.h"

#include <nlohmann/json_fwd.hpp>

#include <memory>

namespace forge::llm::grammar {

// Parse the request with nlohmann::ordered_json so that objects keep the schema's property order.
std::shared_ptr<const Grammar> compile_response_format(const nlohmann::ordered_json& response_format);
std::shared_ptr<const Grammar> compile_response_format(const nlohmann::json& response_format);

// A schema sent in a field of its own (llama-server's top-level `json_schema`): its errors'
// paths start with `field` ("json_schema/properties/x").
std::shared_ptr<const Grammar> compile_json_schema_field(const nlohmann::ordered_json& schema, const std::string& field);

}  // namespace forge::llm::grammar
