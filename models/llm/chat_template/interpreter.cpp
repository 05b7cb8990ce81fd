#include "models/llm/chat_template/interpreter.h"

#include "core/error.h"
#include "models/llm/chat_template/builtins.h"
#include "models/llm/chat_template/lexer.h"
#include "models/llm/chat_template/limits.h"

#include "core/checked_math.h"

#include <cmath>
#include <optional>

namespace forge::llm::jinja {

namespace {

// Scope guard: pushes a scope for a loop iteration or macro call.
class ScopeGuard {
public:
    explicit ScopeGuard(std::vector<std::unordered_map<std::string, Value>>& scopes) : scopes_(scopes) { scopes_.emplace_back(); }
    ~ScopeGuard() { scopes_.pop_back(); }
    ScopeGuard(const ScopeGuard&) = delete;
    ScopeGuard& operator=(const ScopeGuard&) = delete;

private:
    std::vector<std::unordered_map<std::string, Value>>& scopes_;
};

// Python's index rules: negative counts from the end.
std::int64_t normalize(std::int64_t index, std::int64_t size) { return index < 0 ? index + size : index; }

List iterate(const Value& v) {
    if (v.is_list()) return v.as_list();
    if (v.is_dict()) {  // iterating a dict gives its keys
        List keys;
        for (const auto& [key, value] : v.as_dict()) keys.emplace_back(key);
        return keys;
    }
    if (v.is_string()) {
        List chars;
        for (const char c : v.as_string()) chars.emplace_back(std::string(1, c));
        return chars;
    }
    if (v.is_undefined() || v.is_none()) return {};
    throw Error(fmt::format("cannot iterate over a {}", v.type_name()));
}

// Python's integer operators on int64; nullopt when the result does not fit (Python would
// grow a big integer, which no chat template needs: an error beats a wrapped number).
std::optional<std::int64_t> integer_op(const std::string& op, std::int64_t a, std::int64_t b) {
    if (op == "+") return checked_add(a, b);
    if (op == "-") return checked_sub(a, b);
    if (op == "*") return checked_mul(a, b);
    if (op == "//") return floor_div(a, b);
    if (op == "%") return floor_mod(a, b);
    if (op == "**") return checked_pow(a, b);
    return std::nullopt;
}

// An error that already names its template position.
class PositionedError : public Error {
public:
    using Error::Error;
};

Value loop_object(std::size_t index, std::size_t length) {
    const auto i = static_cast<std::int64_t>(index), n = static_cast<std::int64_t>(length);
    return Value(Dict{{"index0", Value(i)}, {"index", Value(i + 1)}, {"first", Value(i == 0)}, {"last", Value(i == n - 1)},
                      {"length", Value(n)}, {"revindex", Value(n - i)}, {"revindex0", Value(n - i - 1)}});
}

}  // namespace

Interpreter::Interpreter(std::string_view source, const Dict& globals) : source_(source) {
    scopes_.emplace_back();
    for (auto& [name, value] : global_functions()) scopes_.back()[name] = value;
    for (const auto& [name, value] : globals) scopes_.back()[name] = value;
}

void Interpreter::fail_at(std::size_t offset, std::string_view what) const {
    throw PositionedError(fmt::format("chat template {}: {}", describe_position(source_, offset), what));
}

void Interpreter::enter(std::size_t offset) {
    if (depth_ > kMaxCallDepth)
        fail_at(offset, fmt::format("nested or recursive more than {} levels deep", kMaxCallDepth));
    if (++steps_ > kMaxSteps) fail_at(offset, fmt::format("the template ran more than {} steps", kMaxSteps));
    offset_ = offset;
}

std::string Interpreter::render(const Body& body) {
    out_.clear();
    // Errors from values and built-ins (a list containing itself, a string too long, a
    // wrong argument type) get the position of the expression being evaluated.
    try {
        exec(body);
    } catch (...) {
        rethrow_at(offset_, "");
    }
    return std::move(out_);
}

void Interpreter::rethrow_at(std::size_t offset, std::string_view context) const {
    const std::string prefix = context.empty() ? std::string() : std::string(context) + ": ";
    try {
        throw;
    } catch (const PositionedError&) {
        throw;
    } catch (const Error& error) {
        fail_at(offset, prefix + error.what());
    } catch (const std::bad_variant_access&) {
        fail_at(offset, prefix + "an argument of the wrong type");
    } catch (const std::logic_error&) {  // std::stoll and friends on a bad number
        fail_at(offset, prefix + "a value out of range");
    }
}

Interpreter::Flow Interpreter::exec(const Body& body) {
    for (const auto& stmt : body) {
        const Flow flow = exec(*stmt);
        if (flow != Flow::Normal) return flow;
    }
    return Flow::Normal;
}

Interpreter::Flow Interpreter::exec(const Stmt& stmt) {
    const DepthGuard guard(depth_, kMaxCallDepth);
    enter(stmt.offset);
    Flow flow = Flow::Normal;
    switch (stmt.kind) {
        case Stmt::Kind::Text: out_ += stmt.text; break;
        case Stmt::Kind::Output: out_ += eval(*stmt.expr).to_output(); break;
        case Stmt::Kind::If: exec_if(stmt, flow); break;
        case Stmt::Kind::For: flow = exec_for(stmt); break;
        case Stmt::Kind::Set: exec_set(stmt); break;
        case Stmt::Kind::Macro: define_macro(stmt); break;
        case Stmt::Kind::Break: return Flow::Break;
        case Stmt::Kind::Continue: return Flow::Continue;
    }
    check_text_size(out_.size());
    return flow;
}

void Interpreter::exec_if(const Stmt& stmt, Flow& flow) {
    for (const auto& [condition, body] : stmt.branches) {
        if (eval(*condition).truthy()) {
            flow = exec(body);
            return;
        }
    }
    flow = exec(stmt.else_body);
}

Interpreter::Flow Interpreter::exec_for(const Stmt& stmt) {
    List items = iterate(eval(*stmt.expr));
    if (stmt.filter) {  // {% for x in xs if cond %}: filtered before loop.index is counted
        List kept;
        for (auto& item : items) {
            ScopeGuard scope(scopes_);
            scopes_.back()[stmt.targets[0]] = item;
            if (eval(*stmt.filter).truthy()) kept.push_back(item);
        }
        items = std::move(kept);
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        enter(stmt.offset);  // an iteration is a step, even with an empty body
        ScopeGuard scope(scopes_);
        auto& vars = scopes_.back();
        if (stmt.targets.size() == 1) {
            vars[stmt.targets[0]] = items[i];
        } else {  // {% for key, value in d.items() %}
            const List parts = iterate(items[i]);
            if (parts.size() != stmt.targets.size()) fail_at(stmt.offset, "cannot unpack loop item");
            for (std::size_t t = 0; t < parts.size(); ++t) vars[stmt.targets[t]] = parts[t];
        }
        vars["loop"] = loop_object(i, items.size());
        if (exec(stmt.body) == Flow::Break) break;
    }
    if (items.empty()) return exec(stmt.else_body);
    return Flow::Normal;
}

void Interpreter::exec_set(const Stmt& stmt) {
    Value value;
    if (stmt.expr) {
        value = eval(*stmt.expr);
    } else {  // block set: the rendered body
        std::string saved = std::move(out_);
        out_.clear();
        exec(stmt.body);
        value = Value(std::move(out_));
        out_ = std::move(saved);
    }
    if (stmt.attribute.empty()) {
        assign(stmt.targets[0], std::move(value));
        return;
    }
    const Value target = lookup(stmt.targets[0]);
    if (!target.is_dict()) fail_at(stmt.offset, fmt::format("cannot set an attribute of a {}", target.type_name()));
    try {
        check_insertable(target, value);
    } catch (const Error& error) {
        fail_at(stmt.offset, error.what());
    }
    for (auto& [key, slot] : target.as_dict()) {
        if (key == stmt.attribute) {
            slot = std::move(value);
            return;
        }
    }
    target.as_dict().emplace_back(stmt.attribute, std::move(value));
}

void Interpreter::define_macro(const Stmt& stmt) {
    // The macro captures the statement by pointer: the tree outlives every render.
    const Stmt* macro = &stmt;
    assign(stmt.text, Value(Function([this, macro](CallArgs& args) {
        ScopeGuard scope(scopes_);
        for (std::size_t i = 0; i < macro->params.size(); ++i) {
            const auto& [name, fallback] = macro->params[i];
            Value value = args.get(i, name);
            if (value.is_undefined() && fallback) value = eval(*fallback);
            scopes_.back()[name] = std::move(value);
        }
        std::string saved = std::move(out_);
        out_.clear();
        exec(macro->body);
        Value result(std::move(out_));
        out_ = std::move(saved);
        return result;
    })));
}

Value Interpreter::lookup(const std::string& name) const {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
        const auto it = scope->find(name);
        if (it != scope->end()) return it->second;
    }
    return Value();
}

void Interpreter::assign(const std::string& name, Value value) { scopes_.back()[name] = std::move(value); }

Value Interpreter::eval(const Expr& e) {
    const DepthGuard guard(depth_, kMaxCallDepth);
    enter(e.offset);
    switch (e.kind) {
        case Expr::Kind::Literal: return e.value;
        case Expr::Kind::Name: return lookup(e.name);
        case Expr::Kind::List: {
            List items;
            for (const auto& item : e.args) items.push_back(eval(*item));
            Value list(std::move(items));
            for (const Value& item : list.as_list()) check_insertable(list, item);
            return list;
        }
        case Expr::Kind::Dict: {
            Dict dict;
            for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) dict.emplace_back(eval(*e.args[i]).to_output(), eval(*e.args[i + 1]));
            Value object(std::move(dict));
            for (const auto& [key, item] : object.as_dict()) check_insertable(object, item);
            return object;
        }
        case Expr::Kind::Attribute: return eval_attribute(e);
        case Expr::Kind::Index: return eval_index(e);
        case Expr::Kind::Slice: return eval_slice(e);
        case Expr::Kind::Call: return eval_call(e);
        case Expr::Kind::Filter: {
            const Value input = eval(*e.args[0]);
            CallArgs args = eval_args(e, 1);
            try {
                if (auto result = apply_filter(e.name, input, args)) return *result;
            } catch (...) {
                rethrow_at(e.offset, fmt::format("filter '{}'", e.name));
            }
            fail_at(e.offset, fmt::format("unsupported filter '{}'", e.name));
        }
        case Expr::Kind::Test: {
            const Value input = eval(*e.args[0]);
            CallArgs args = eval_args(e, 1);
            if (auto result = apply_test(e.name, input, args)) return *result != e.negate;
            fail_at(e.offset, fmt::format("unsupported test 'is {}'", e.name));
        }
        case Expr::Kind::Unary: {
            const Value operand = eval(*e.args[0]);
            if (e.name == "not") return !operand.truthy();
            if (!operand.is_number()) fail_at(e.offset, fmt::format("unary {} of a {}", e.name, operand.type_name()));
            if (e.name == "+") return operand;
            if (!operand.is_int()) return Value(-operand.as_double());
            const auto negated = checked_sub(0, operand.as_int());
            if (!negated) fail_at(e.offset, fmt::format("integer overflow in -{}", operand.as_int()));
            return Value(*negated);
        }
        case Expr::Kind::Binary: return eval_binary(e);
        case Expr::Kind::Conditional:
            if (eval(*e.args[0]).truthy()) return eval(*e.args[1]);
            return e.args[2] ? eval(*e.args[2]) : Value();
    }
    fail_at(e.offset, "unknown expression");
}

Value Interpreter::eval_binary(const Expr& e) {
    const std::string& op = e.name;
    if (op == "and" || op == "or") {  // short-circuit, returning an operand as Python does
        Value left = eval(*e.args[0]);
        if (left.truthy() == (op == "or")) return left;
        return eval(*e.args[1]);
    }
    const Value a = eval(*e.args[0]);
    const Value b = eval(*e.args[1]);
    if (op == "==") return a == b;
    if (op == "!=") return !(a == b);
    if (op == "~" || (op == "+" && a.is_string() && b.is_string())) {
        check_text_size(a.to_output().size() + b.to_output().size());
        return a.to_output() + b.to_output();
    }
    if (op == "in" || op == "not in") {
        bool found = false;
        if (b.is_string()) {
            found = a.is_string() && b.as_string().find(a.as_string()) != std::string::npos;
        } else if (b.is_list()) {
            found = std::find(b.as_list().begin(), b.as_list().end(), a) != b.as_list().end();
        } else if (b.is_dict()) {
            found = a.is_string() && b.find(a.as_string()) != nullptr;
        } else if (!b.is_undefined() && !b.is_none()) {
            fail_at(e.offset, fmt::format("'in' needs a string, list or dict, not a {}", b.type_name()));
        }
        return found == (op == "in");
    }
    if (op == "+" && a.is_list() && b.is_list()) {
        if (static_cast<std::int64_t>(a.as_list().size() + b.as_list().size()) > kMaxListItems)
            fail_at(e.offset, fmt::format("a list grew past {} items", kMaxListItems));
        List joined = a.as_list();
        joined.insert(joined.end(), b.as_list().begin(), b.as_list().end());
        return joined;
    }
    if ((op == "<" || op == ">" || op == "<=" || op == ">=") && a.is_string() && b.is_string()) {
        const int c = a.as_string().compare(b.as_string());
        return op == "<" ? c < 0 : op == ">" ? c > 0 : op == "<=" ? c <= 0 : c >= 0;
    }
    if (!a.is_number() || !b.is_number()) {
        fail_at(e.offset, fmt::format("operator '{}' between a {} and a {}", op, a.type_name(), b.type_name()));
    }
    const double x = a.as_double(), y = b.as_double();
    if (op == "<") return x < y;
    if (op == ">") return x > y;
    if (op == "<=") return x <= y;
    if (op == ">=") return x >= y;
    if ((op == "%" || op == "//" || op == "/") && y == 0) fail_at(e.offset, "division by zero");
    if (a.is_int() && b.is_int() && op != "/") {
        if (op == "**" && b.as_int() < 0) return Value(std::pow(x, y));
        const std::optional<std::int64_t> r = integer_op(op, a.as_int(), b.as_int());
        if (!r) fail_at(e.offset, fmt::format("integer overflow in {} {} {}", a.as_int(), op, b.as_int()));
        return Value(*r);
    }
    if (op == "+") return Value(x + y);
    if (op == "-") return Value(x - y);
    if (op == "*") return Value(x * y);
    if (op == "/") return Value(x / y);
    if (op == "//") return Value(std::floor(x / y));
    if (op == "%") return Value(x - y * std::floor(x / y));
    if (op == "**") return Value(std::pow(x, y));
    fail_at(e.offset, fmt::format("unsupported operator '{}'", op));
}

Value Interpreter::eval_attribute(const Expr& e) {
    const Value target = eval(*e.args[0]);
    if (const Value* found = target.find(e.name)) return *found;
    if (auto method = bound_method(target, e.name)) return *method;
    return Value();  // undefined, as Jinja: `message.tool_calls` on a message without them
}

Value Interpreter::eval_index(const Expr& e) {
    const Value target = eval(*e.args[0]);
    const Value key = eval(*e.args[1]);
    if (key.is_string()) {
        if (const Value* found = target.find(key.as_string())) return *found;
        if (auto method = bound_method(target, key.as_string())) return *method;
        return Value();
    }
    if (!key.is_int()) fail_at(e.offset, fmt::format("cannot index with a {}", key.type_name()));
    if (target.is_list() || target.is_string()) {
        const auto size = target.is_list() ? static_cast<std::int64_t>(target.as_list().size())
                                           : static_cast<std::int64_t>(target.as_string().size());
        const std::int64_t i = normalize(key.as_int(), size);
        if (i < 0 || i >= size) return Value();
        if (target.is_list()) return target.as_list()[static_cast<std::size_t>(i)];
        return std::string(1, target.as_string()[static_cast<std::size_t>(i)]);
    }
    if (target.is_undefined()) return Value();
    fail_at(e.offset, fmt::format("cannot index a {}", target.type_name()));
}

Value Interpreter::eval_slice(const Expr& e) {
    const Value target = eval(*e.args[0]);
    if (!target.is_list() && !target.is_string()) fail_at(e.offset, fmt::format("cannot slice a {}", target.type_name()));
    const List items = iterate(target);
    const auto n = static_cast<std::int64_t>(items.size());
    const std::int64_t step = e.args[3] ? eval(*e.args[3]).as_int() : 1;
    if (step == 0) fail_at(e.offset, "slice step cannot be zero");
    // Python's slice bounds: defaults depend on the step's sign, then clamp.
    auto bound = [&](const ExprPtr& expr, std::int64_t fallback, std::int64_t low, std::int64_t high) {
        if (!expr) return fallback;
        return std::clamp(normalize(eval(*expr).as_int(), n), low, high);
    };
    const std::int64_t start = step > 0 ? bound(e.args[1], 0, 0, n) : bound(e.args[1], n - 1, -1, n - 1);
    const std::int64_t stop = step > 0 ? bound(e.args[2], n, 0, n) : bound(e.args[2], -1, -1, n - 1);
    List out;
    // Stepping past the end of the index range ends the slice (a huge step must not wrap).
    for (std::optional<std::int64_t> i = start; i && (step > 0 ? *i < stop : *i > stop); i = checked_add(*i, step))
        out.push_back(items[static_cast<std::size_t>(*i)]);
    if (target.is_list()) return out;
    std::string text;
    for (const auto& c : out) text += c.as_string();
    return text;
}

CallArgs Interpreter::eval_args(const Expr& e, std::size_t first) {
    CallArgs args;
    for (std::size_t i = first; i < e.args.size(); ++i) args.positional.push_back(eval(*e.args[i]));
    for (const auto& [key, value] : e.kwargs) args.keyword.emplace_back(key, eval(*value));
    return args;
}

Value Interpreter::eval_call(const Expr& e) {
    const Value callee = eval(*e.args[0]);
    if (!callee.is_callable()) {
        const Expr& target = *e.args[0];
        const std::string name = target.kind == Expr::Kind::Attribute || target.kind == Expr::Kind::Name ? target.name : "expression";
        fail_at(e.offset, fmt::format("unsupported function or method '{}'", name));
    }
    CallArgs args = eval_args(e, 1);
    try {
        return callee.as_function()(args);
    } catch (const std::bad_variant_access&) {
        fail_at(e.offset, "wrong argument type in call");
    }
}

}  // namespace forge::llm::jinja
