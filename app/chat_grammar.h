// `forge chat --json-schema FILE` / `--regex PATTERN` / `--grammar-file F.gbnf`: the grammar an
// answer must follow.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace forge::app {

struct ChatGrammarFlags {
    std::string json_schema_file, regex, grammar_file;  // at most one given
};

// nullptr when none is given; throws forge::Error naming the file (with the schema's JSON
// path, or the GBNF line and column) or the pattern's offset on bad input.
std::shared_ptr<const llm::grammar::Grammar> chat_grammar(const ChatGrammarFlags& flags);

// --regex's check: the pattern compiles (syntax, and the grammar limits of
// models/llm/grammar/grammar_limits.h), so a bad one is a usage error (exit 2) before the
// model loads. A --json-schema or --grammar-file file's problems are the file's (exit 1,
// chat_grammar).
CLI::Validator regex_pattern();

}  // namespace forge::app
