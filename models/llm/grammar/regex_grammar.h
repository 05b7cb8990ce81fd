// A regular-expression subset compiled to a grammar: literals and escapes (\d \w \s \D \W \S
// \n \t \r \f \v \xHH \uHHHH and escaped punctuation), '.', bracket classes with ranges and
// negation, groups ( ) and (?: ), alternation |, the quantifiers * + ? {n} {n,} {n,m} (a lazy
// '?' after one changes nothing here), and ^ / $ at the ends of the pattern. Backreferences,
// lookaround and other assertions are refused with a forge::Error naming them and their offset.
//
// compile_regex: the whole output must match (as `forge chat --grammar-regex`).
// json_string_regex: a JSON string whose *value* matches, unanchored sides as JSON Schema's
// "pattern" means them (a pattern without ^ may have anything before it); characters JSON
// must escape are written as their escapes.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <memory>
#include <string>
#include <string_view>

namespace forge::llm::grammar {

std::shared_ptr<const Grammar> compile_regex(std::string_view pattern);
Symbol json_string_regex(GrammarBuilder& builder, std::string_view pattern);
// The pattern of a JSON Schema string format: date, time, date-time, uuid; "" for others.
std::string format_pattern(std::string_view format);

}  // namespace forge::llm::grammar
