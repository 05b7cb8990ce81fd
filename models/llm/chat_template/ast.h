// The syntax tree of a template. Expressions and statements are small tagged structs: the
// `kind` says which fields are used (see the comments), which keeps the parser and the
// interpreter readable as two switch statements.
#pragma once

#include "models/llm/chat_template/value.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace forge::llm::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
    enum class Kind {
        Literal,    // value
        Name,       // name
        List,       // args = items
        Dict,       // args = keys and values, alternating
        Attribute,  // args[0] . name
        Index,      // args[0] [ args[1] ]
        Slice,      // args[0] [ args[1] : args[2] : args[3] ] (null = omitted)
        Call,       // args[0] ( args[1..] , kwargs )
        Filter,     // args[0] | name ( args[1..] , kwargs )
        Test,       // args[0] is [not: negate] name ( args[1..] )
        Unary,      // op args[0]: "not", "-", "+"
        Binary,     // args[0] op args[1]: arithmetic, comparison, "in", "not in", "~", "and", "or"
        Conditional,  // args[1] if args[0] else args[2] (args[2] may be null)
    };
    Kind kind;
    std::size_t offset = 0;
    int depth = 1;  // of the tree below and including this node (the parser bounds it)
    Value value;
    std::string name;  // name, attribute, filter, test or operator
    bool negate = false;
    std::vector<ExprPtr> args;
    std::vector<std::pair<std::string, ExprPtr>> kwargs;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct Stmt {
    enum class Kind {
        Text,    // text
        Output,  // {{ expr }}
        If,      // branches: (condition, body)...; else_body
        For,     // targets in expr [if filter]: body; else_body
        Set,     // targets[0] (optionally attribute of targets[0]: attribute) = expr; or block set: body
        Macro,   // name(params = defaults) body
        Break,
        Continue,
    };
    Kind kind;
    std::size_t offset = 0;
    std::string text;
    ExprPtr expr;
    ExprPtr filter;
    std::vector<std::string> targets;
    std::string attribute;
    std::vector<std::pair<ExprPtr, Body>> branches;
    Body body;
    Body else_body;
    std::vector<std::pair<std::string, ExprPtr>> params;  // default null when none
};

}  // namespace forge::llm::jinja
