// `forge chat --json-schema FILE` / `--regex PATTERN`: the grammar an answer must follow.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <memory>
#include <string>

namespace forge::app {

// nullptr when neither is given; throws forge::Error naming the file (or the schema's JSON
// path, or the pattern's offset) on bad input.
std::shared_ptr<const llm::grammar::Grammar> chat_grammar(const std::string& json_schema_file, const std::string& regex);

}  // namespace forge::app
