// Splitting a template into tokens: literal text, the delimiters {{ }} {% %}, and inside them
// names, strings, numbers and operators. Whitespace control is applied here, with the
// settings Hugging Face renders chat templates with (jinja2 trim_blocks=True,
// lstrip_blocks=True): a block tag's line indentation and the newline after it vanish,
// and "-" in a delimiter ({%- -%} {{- -}}) strips all whitespace on that side.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm::jinja {

enum class TokenKind { Text, ExprBegin, ExprEnd, StmtBegin, StmtEnd, Name, String, Number, Operator, End };

struct Token {
    TokenKind kind;
    std::string text;  // Text: the literal; String: the unescaped value; others: the spelling
    std::size_t offset = 0;
};

std::vector<Token> tokenize(std::string_view source);

// "line L, column C" of a byte offset, for error messages.
std::string describe_position(std::string_view source, std::size_t offset);

}  // namespace forge::llm::jinja
