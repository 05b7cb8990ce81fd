#include "models/llm/chat_template/parser.h"

#include "core/error.h"
#include "models/llm/chat_template/lexer.h"
#include "models/llm/chat_template/limits.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>

namespace forge::llm::jinja {

namespace {

class Parser {
public:
    explicit Parser(std::string_view source) : source_(source), tokens_(tokenize(source)) {}

    Body run() {
        Body body = parse_body({});
        if (peek().kind != TokenKind::End) fail_at(peek(), fmt::format("unexpected {{% {} %}}", stmt_keyword()));
        return body;
    }

private:
    // ---- token helpers ----
    const Token& peek(std::size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
    const Token& take() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
    bool is_op(std::string_view op, std::size_t ahead = 0) const {
        return peek(ahead).kind == TokenKind::Operator && peek(ahead).text == op;
    }
    bool is_name(std::string_view name, std::size_t ahead = 0) const {
        return peek(ahead).kind == TokenKind::Name && peek(ahead).text == name;
    }
    bool accept_op(std::string_view op) { return is_op(op) ? (take(), true) : false; }
    bool accept_name(std::string_view name) { return is_name(name) ? (take(), true) : false; }

    [[noreturn]] void fail_at(const Token& token, std::string_view what) const {
        throw Error(fmt::format("chat template {}: {}", describe_position(source_, token.offset), what));
    }
    void expect_op(std::string_view op) {
        if (!accept_op(op)) fail_at(peek(), fmt::format("expected '{}' but found '{}'", op, peek().text));
    }
    std::string expect_name() {
        if (peek().kind != TokenKind::Name) fail_at(peek(), fmt::format("expected a name but found '{}'", peek().text));
        return take().text;
    }
    void expect_stmt_end() {
        if (peek().kind != TokenKind::StmtEnd) fail_at(peek(), fmt::format("expected '%}}' but found '{}'", peek().text));
        take();
    }
    std::string stmt_keyword() const { return peek(1).text; }

    // Recursion (nested parentheses, blocks, unary operators) is bounded, so that a template
    // cannot overflow the parser's stack; so is the depth of the tree it builds, since
    // evaluating and destroying a tree recurse along it too.
    [[nodiscard]] DepthGuard nest() {
        if (depth_ >= kMaxSyntaxDepth) fail_at(peek(), fmt::format("nested more than {} levels deep", kMaxSyntaxDepth));
        return DepthGuard(depth_, kMaxSyntaxDepth);
    }
    ExprPtr finished(ExprPtr e) {
        int deepest = 0;
        for (const auto& arg : e->args)
            if (arg) deepest = std::max(deepest, arg->depth);
        for (const auto& [key, arg] : e->kwargs) deepest = std::max(deepest, arg->depth);
        e->depth = deepest + 1;
        if (e->depth > kMaxSyntaxDepth)
            throw Error(fmt::format("chat template {}: an expression nested more than {} levels deep",
                                    describe_position(source_, e->offset), kMaxSyntaxDepth));
        return e;
    }

    // ---- statements ----
    static StmtPtr new_stmt(Stmt::Kind kind, std::size_t offset) {
        auto stmt = std::make_unique<Stmt>();
        stmt->kind = kind, stmt->offset = offset;
        return stmt;
    }

    // Statements until a {% keyword %} in `stops` (left unconsumed) or the end.
    Body parse_body(std::initializer_list<std::string_view> stops) {
        Body body;
        for (;;) {
            const Token& token = peek();
            if (token.kind == TokenKind::End) return body;
            if (token.kind == TokenKind::Text) {
                auto stmt = new_stmt(Stmt::Kind::Text, token.offset);
                stmt->text = take().text;
                body.push_back(std::move(stmt));
            } else if (token.kind == TokenKind::ExprBegin) {
                take();
                auto stmt = new_stmt(Stmt::Kind::Output, token.offset);
                stmt->expr = parse_expr();
                if (peek().kind != TokenKind::ExprEnd) fail_at(peek(), fmt::format("expected '}}}}' but found '{}'", peek().text));
                take();
                body.push_back(std::move(stmt));
            } else {
                for (const auto stop : stops) {
                    if (is_name(stop, 1)) return body;
                }
                body.push_back(parse_statement());
            }
        }
    }

    StmtPtr parse_statement() {
        const DepthGuard guard = nest();
        const Token& begin = take();  // {%
        const Token& keyword = peek();
        const std::string word = expect_name();
        auto stmt = new_stmt(Stmt::Kind::Text, begin.offset);
        if (word == "if") return parse_if(std::move(stmt));
        if (word == "for") return parse_for(std::move(stmt));
        if (word == "set") return parse_set(std::move(stmt));
        if (word == "macro") return parse_macro(std::move(stmt));
        if (word == "break" || word == "continue") {
            stmt->kind = word == "break" ? Stmt::Kind::Break : Stmt::Kind::Continue;
            expect_stmt_end();
            return stmt;
        }
        fail_at(keyword, fmt::format("unsupported statement {{% {} %}}", word));
    }

    void close_block(std::string_view end_keyword) {
        take();  // {%
        if (!accept_name(end_keyword)) fail_at(peek(), fmt::format("expected {{% {} %}}", end_keyword));
        expect_stmt_end();
    }

    StmtPtr parse_if(StmtPtr stmt) {
        stmt->kind = Stmt::Kind::If;
        ExprPtr condition = parse_expr();
        expect_stmt_end();
        for (;;) {
            Body body = parse_body({"elif", "else", "endif"});
            if (peek().kind == TokenKind::End) fail_at(peek(), "missing {% endif %}");
            stmt->branches.emplace_back(std::move(condition), std::move(body));
            if (is_name("elif", 1)) {
                take(), take();
                condition = parse_expr();
                expect_stmt_end();
                continue;
            }
            if (is_name("else", 1)) {
                take(), take();
                expect_stmt_end();
                stmt->else_body = parse_body({"endif"});
                if (peek().kind == TokenKind::End) fail_at(peek(), "missing {% endif %}");
            }
            close_block("endif");
            return stmt;
        }
    }

    StmtPtr parse_for(StmtPtr stmt) {
        stmt->kind = Stmt::Kind::For;
        do {
            stmt->targets.push_back(expect_name());
        } while (accept_op(","));
        if (!accept_name("in")) fail_at(peek(), "expected 'in' in {% for %}");
        stmt->expr = parse_or();  // not a full expression: "if" here filters the loop
        if (accept_name("if")) stmt->filter = parse_or();
        expect_stmt_end();
        stmt->body = parse_body({"else", "endfor"});
        if (peek().kind == TokenKind::End) fail_at(peek(), "missing {% endfor %}");
        if (is_name("else", 1)) {
            take(), take();
            expect_stmt_end();
            stmt->else_body = parse_body({"endfor"});
        }
        if (peek().kind == TokenKind::End) fail_at(peek(), "missing {% endfor %}");
        close_block("endfor");
        return stmt;
    }

    StmtPtr parse_set(StmtPtr stmt) {
        stmt->kind = Stmt::Kind::Set;
        stmt->targets.push_back(expect_name());
        if (accept_op(".")) stmt->attribute = expect_name();
        if (accept_op("=")) {
            stmt->expr = parse_expr();
            expect_stmt_end();
            return stmt;
        }
        expect_stmt_end();  // {% set x %}...{% endset %}
        stmt->body = parse_body({"endset"});
        if (peek().kind == TokenKind::End) fail_at(peek(), "missing {% endset %}");
        close_block("endset");
        return stmt;
    }

    StmtPtr parse_macro(StmtPtr stmt) {
        stmt->kind = Stmt::Kind::Macro;
        stmt->text = expect_name();
        expect_op("(");
        while (!accept_op(")")) {
            std::string param = expect_name();
            ExprPtr fallback = accept_op("=") ? parse_expr() : nullptr;
            stmt->params.emplace_back(std::move(param), std::move(fallback));
            if (!is_op(")")) expect_op(",");
        }
        expect_stmt_end();
        stmt->body = parse_body({"endmacro"});
        if (peek().kind == TokenKind::End) fail_at(peek(), "missing {% endmacro %}");
        close_block("endmacro");
        return stmt;
    }

    // ---- expressions ----
    ExprPtr node(Expr::Kind kind, std::size_t offset, std::string name = {}) {
        auto e = std::make_unique<Expr>();
        e->kind = kind, e->offset = offset, e->name = std::move(name);
        return e;
    }
    ExprPtr binary(std::string op, ExprPtr left, ExprPtr right) {
        auto e = node(Expr::Kind::Binary, left->offset, std::move(op));
        e->args.push_back(std::move(left));
        e->args.push_back(std::move(right));
        return finished(std::move(e));
    }

    ExprPtr parse_expr() {
        const DepthGuard guard = nest();
        ExprPtr value = parse_or();
        if (!is_name("if")) return value;
        const std::size_t offset = take().offset;
        auto e = node(Expr::Kind::Conditional, offset);
        e->args.push_back(parse_or());
        e->args.push_back(std::move(value));
        e->args.push_back(accept_name("else") ? parse_expr() : nullptr);
        return finished(std::move(e));
    }

    ExprPtr parse_or() {
        ExprPtr left = parse_and();
        while (accept_name("or")) left = binary("or", std::move(left), parse_and());
        return left;
    }

    ExprPtr parse_and() {
        ExprPtr left = parse_not();
        while (accept_name("and")) left = binary("and", std::move(left), parse_not());
        return left;
    }

    ExprPtr parse_not() {
        if (!is_name("not")) return parse_compare();
        const DepthGuard guard = nest();
        auto e = node(Expr::Kind::Unary, take().offset, "not");
        e->args.push_back(parse_not());
        return finished(std::move(e));
    }

    ExprPtr parse_compare() {
        ExprPtr left = parse_concat();
        for (;;) {
            if (peek().kind == TokenKind::Operator &&
                (peek().text == "==" || peek().text == "!=" || peek().text == "<" || peek().text == ">" ||
                 peek().text == "<=" || peek().text == ">=")) {
                std::string op = take().text;
                left = binary(std::move(op), std::move(left), parse_concat());
            } else if (accept_name("in")) {
                left = binary("in", std::move(left), parse_concat());
            } else if (is_name("not") && is_name("in", 1)) {
                take(), take();
                left = binary("not in", std::move(left), parse_concat());
            } else {
                return left;
            }
        }
    }

    ExprPtr parse_concat() {
        ExprPtr left = parse_additive();
        while (accept_op("~")) left = binary("~", std::move(left), parse_additive());
        return left;
    }

    ExprPtr parse_additive() {
        ExprPtr left = parse_multiplicative();
        while (is_op("+") || is_op("-")) {
            std::string op = take().text;
            left = binary(std::move(op), std::move(left), parse_multiplicative());
        }
        return left;
    }

    ExprPtr parse_multiplicative() {
        ExprPtr left = parse_power();
        while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
            std::string op = take().text;
            left = binary(std::move(op), std::move(left), parse_power());
        }
        return left;
    }

    ExprPtr parse_power() {
        ExprPtr left = parse_unary();
        while (accept_op("**")) left = binary("**", std::move(left), parse_unary());
        return left;
    }

    ExprPtr parse_unary() {
        if (is_op("-") || is_op("+")) {
            const DepthGuard guard = nest();
            const Token& op = take();
            auto e = node(Expr::Kind::Unary, op.offset, op.text);
            e->args.push_back(parse_unary());
            return finished(std::move(e));
        }
        return parse_postfix(parse_primary());
    }

    void parse_call_args(Expr& call) {
        while (!accept_op(")")) {
            if (peek().kind == TokenKind::Name && is_op("=", 1)) {
                std::string key = take().text;
                take();
                call.kwargs.emplace_back(std::move(key), parse_expr());
            } else {
                call.args.push_back(parse_expr());
            }
            if (!is_op(")")) expect_op(",");
        }
    }

    ExprPtr parse_postfix(ExprPtr target) {
        for (;;) {
            const Token& token = peek();
            if (accept_op(".")) {
                auto e = node(Expr::Kind::Attribute, token.offset, expect_name());
                e->args.push_back(std::move(target));
                target = finished(std::move(e));
            } else if (accept_op("[")) {
                target = parse_subscript(std::move(target), token.offset);
            } else if (accept_op("(")) {
                auto e = node(Expr::Kind::Call, token.offset);
                e->args.push_back(std::move(target));
                parse_call_args(*e);
                target = finished(std::move(e));
            } else if (accept_op("|")) {
                auto e = node(Expr::Kind::Filter, token.offset, expect_name());
                e->args.push_back(std::move(target));
                if (accept_op("(")) parse_call_args(*e);
                target = finished(std::move(e));
            } else if (accept_name("is")) {
                auto e = node(Expr::Kind::Test, token.offset);
                e->negate = accept_name("not");
                e->name = expect_name();
                e->args.push_back(std::move(target));
                if (accept_op("(")) parse_call_args(*e);
                target = finished(std::move(e));
            } else {
                return target;
            }
        }
    }

    ExprPtr parse_subscript(ExprPtr target, std::size_t offset) {
        ExprPtr parts[3];
        int part = 0;
        bool slice = false;
        for (;;) {
            if (accept_op("]")) break;
            if (accept_op(":")) {
                slice = true;
                if (++part > 2) fail_at(peek(), "too many ':' in a slice");
                continue;
            }
            parts[part] = parse_expr();
        }
        auto e = node(slice ? Expr::Kind::Slice : Expr::Kind::Index, offset);
        e->args.push_back(std::move(target));
        if (!slice && !parts[0]) fail_at(peek(), "empty subscript []");
        for (int i = 0; i < (slice ? 3 : 1); ++i) e->args.push_back(std::move(parts[i]));
        return finished(std::move(e));
    }

    ExprPtr parse_primary() {
        const Token& token = take();
        switch (token.kind) {
            case TokenKind::String: {
                std::string text = token.text;
                while (peek().kind == TokenKind::String) text += take().text;  // "a" "b" concatenates
                auto e = node(Expr::Kind::Literal, token.offset);
                e->value = Value(std::move(text));
                return e;
            }
            case TokenKind::Number: {
                auto e = node(Expr::Kind::Literal, token.offset);
                e->value = number(token);
                return e;
            }
            case TokenKind::Name: return name_or_constant(token);
            case TokenKind::Operator:
                if (token.text == "(") {
                    ExprPtr inner = parse_expr();
                    if (is_op(",")) return parse_sequence(token.offset, std::move(inner), ")");
                    expect_op(")");
                    return inner;
                }
                if (token.text == "[") return parse_sequence(token.offset, nullptr, "]");
                if (token.text == "{") return parse_dict(token.offset);
                break;
            case TokenKind::Text:
            case TokenKind::ExprBegin:
            case TokenKind::ExprEnd:
            case TokenKind::StmtBegin:
            case TokenKind::StmtEnd:
            case TokenKind::End: break;
        }
        fail_at(token, fmt::format("unexpected '{}' in an expression", token.text.empty() ? "end of tag" : token.text));
    }

    // An integer literal must fit in 64 bits (Python's would grow; no template needs that).
    Value number(const Token& token) const {
        const char* begin = token.text.data();
        const char* end = begin + token.text.size();
        if (token.text.find('.') != std::string::npos) {
            double value = 0;
            const auto [ptr, error] = std::from_chars(begin, end, value);
            if (error == std::errc{} && ptr == end) return Value(value);
        } else {
            std::int64_t value = 0;
            const auto [ptr, error] = std::from_chars(begin, end, value);
            if (error == std::errc{} && ptr == end) return Value(value);
        }
        fail_at(token, fmt::format("number {} is out of range", token.text));
    }

    ExprPtr name_or_constant(const Token& token) {
        auto e = node(Expr::Kind::Literal, token.offset);
        if (token.text == "true" || token.text == "True") {
            e->value = Value(true);
        } else if (token.text == "false" || token.text == "False") {
            e->value = Value(false);
        } else if (token.text == "none" || token.text == "None") {
            e->value = Value(None{});
        } else {
            e->kind = Expr::Kind::Name;
            e->name = token.text;
        }
        return e;
    }

    // [a, b] or (a, b): a list either way (templates only iterate and index tuples).
    ExprPtr parse_sequence(std::size_t offset, ExprPtr first, std::string_view close) {
        auto e = node(Expr::Kind::List, offset);
        if (first) {
            e->args.push_back(std::move(first));
            accept_op(",");
        }
        while (!accept_op(close)) {
            e->args.push_back(parse_expr());
            if (!is_op(close)) expect_op(",");
        }
        return finished(std::move(e));
    }

    ExprPtr parse_dict(std::size_t offset) {
        auto e = node(Expr::Kind::Dict, offset);
        while (!accept_op("}")) {
            e->args.push_back(parse_expr());
            expect_op(":");
            e->args.push_back(parse_expr());
            if (!is_op("}")) expect_op(",");
        }
        return finished(std::move(e));
    }

    std::string_view source_;
    std::vector<Token> tokens_;
    std::size_t pos_ = 0;
    int depth_ = 0;
};

}  // namespace

Body parse(std::string_view source) { return Parser(source).run(); }

}  // namespace forge::llm::jinja
