// `forge chat --json-schema FILE` / `--regex PATTERN`: the grammar an answer must follow.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace forge::app {

// nullptr when neither is given; throws forge::Error naming the file (or the schema's JSON
// path, or the pattern's offset) on bad input.
std::shared_ptr<const llm::grammar::Grammar> chat_grammar(const std::string& json_schema_file, const std::string& regex);

// --regex's check: the pattern compiles (syntax, and the grammar limits of
// models/llm/grammar/grammar_limits.h), so a bad one is a usage error (exit 2) before the
// model loads. A --json-schema file's problems are the file's (exit 1, chat_grammar).
CLI::Validator regex_pattern();

}  // namespace forge::app
