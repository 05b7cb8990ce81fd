// Tokens to syntax tree, by recursive descent with Jinja's operator precedence (lowest first):
//   x if c else y  <  or  <  and  <  not  <  == != < > <= >= in, not in  <  ~  <  + -
//   <  * / // %  <  **  <  unary - +  <  | filter, is test, . [] () postfix
#pragma once

#include "models/llm/chat_template/ast.h"

#include <string_view>

namespace forge::llm::jinja {

// Throws forge::Error naming the construct and its line and column.
Body parse(std::string_view source);

}  // namespace forge::llm::jinja
