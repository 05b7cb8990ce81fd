// Running a parsed template: statements write to the output, expressions evaluate to Values.
// Scoping follows Jinja2: a for-loop body (each iteration) and a macro call get their own
// scope, so `set` inside a loop does not leak out of it (templates use namespace() for that);
// `if` blocks share the enclosing scope.
#pragma once

#include "models/llm/chat_template/ast.h"
#include "models/llm/chat_template/value.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace forge::llm::jinja {

class Interpreter {
public:
    // `source` is only for error positions; `globals` are the template's variables.
    Interpreter(std::string_view source, const Dict& globals);

    std::string render(const Body& body);

private:
    enum class Flow { Normal, Break, Continue };

    Flow exec(const Body& body);
    Flow exec(const Stmt& stmt);
    void exec_if(const Stmt& stmt, Flow& flow);
    Flow exec_for(const Stmt& stmt);
    void exec_set(const Stmt& stmt);
    void define_macro(const Stmt& stmt);

    Value eval(const Expr& expr);
    Value eval_binary(const Expr& expr);
    Value eval_attribute(const Expr& expr);
    Value eval_index(const Expr& expr);
    Value eval_slice(const Expr& expr);
    Value eval_call(const Expr& expr);
    CallArgs eval_args(const Expr& expr, std::size_t first);

    Value lookup(const std::string& name) const;
    void assign(const std::string& name, Value value);

    [[noreturn]] void fail_at(std::size_t offset, std::string_view what) const;
    // Inside a catch block: the exception again, as an Error at `offset` (raw library
    // messages such as std::get's become a plain sentence). Other exceptions pass through.
    [[noreturn]] void rethrow_at(std::size_t offset, std::string_view context) const;
    // One more level of nesting and one more step, at `offset`; throws past the limits.
    void enter(std::size_t offset);

    std::string_view source_;
    std::vector<std::unordered_map<std::string, Value>> scopes_;
    std::string out_;
    int depth_ = 0;
    std::size_t offset_ = 0;  // of the statement or expression entered last, for errors
    std::int64_t steps_ = 0;
};

}  // namespace forge::llm::jinja
