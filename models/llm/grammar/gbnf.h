// GBNF, llama.cpp's grammar notation (its grammars/README.md), compiled to the engine's
// byte-level Grammar: the third front end beside JSON Schema (json_schema.h) and the regex
// subset (regex_grammar.h). llama-server's `grammar` field and `forge chat --grammar-file`.
//
//   root  ::= "[" ws item ("," ws item){0,4} "]"   # `root` is where matching starts
//   item  ::= [a-z]+ | "\"" [^"\\]* "\""           # classes with ranges and negation
//   ws    ::= [ \t\n]*
//
// Supported as llama.cpp reads it: rules `name ::= ...` (names of letters, digits and '-'),
// alternatives `|`, sequences, groups ( ), the repetitions * + ? {m} {m,} {m,n} (stackable:
// `x*?` is `(x*)?`), literals "..." and classes [...] [^...] with the escapes \n \r \t \\ \"
// \[ \] \xHH \uHHHH \UHHHHHHHH, '.' (any character, newline included), `#` comments. A rule
// ends at the end of its line, except inside parentheses and after `|` or `::=`. Terminals are
// Unicode code points, matched as their UTF-8 bytes. Rules may be used before they are defined.
//
// Refused with a GbnfError naming the line and column: bad syntax, a rule used but never
// defined, a rule defined twice (llama.cpp keeps the last silently), no `root`, a class that
// matches nothing, an escape that is not a code point. Refused with a GrammarLimitError
// (grammar_limits.h): left recursion (`expr ::= expr "+" term`, which llama.cpp refuses too;
// write `expr ::= term ("+" term)*`), counts over kMaxRepeat, grammars past kMaxElements.
#pragma once

#include "core/error.h"
#include "models/llm/grammar/grammar.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace forge::llm::grammar {

// A grammar text that is not valid GBNF; line and column count from 1 (columns in bytes).
class GbnfError : public Error {
public:
    GbnfError(std::size_t line, std::size_t column, const std::string& what);
    std::size_t line() const { return line_; }
    std::size_t column() const { return column_; }

private:
    std::size_t line_, column_;
};

std::shared_ptr<const Grammar> compile_gbnf(std::string_view text);

}  // namespace forge::llm::grammar
