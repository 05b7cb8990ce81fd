#include "models/llm/chat_template/value.h"

#include "core/error.h"
#include "models/llm/chat_template/limits.h"

#include <fmt/format.h>

#include <cmath>

namespace forge::llm::jinja {

// Destroying a deeply nested value recursively would overflow the stack (a template can
// build one in a loop: `set ns.x = [ns.x]`). Instead, the children of every list or dict
// this value owns alone are moved onto a work list and destroyed one level at a time.
Value::~Value() {
    if (!owns_children()) return;
    std::vector<Value> pending;
    move_children_into(pending);
    while (!pending.empty()) {
        Value last = std::move(pending.back());
        pending.pop_back();
        last.move_children_into(pending);
    }  // `last` now holds no children: its destructor returns at once
}

bool Value::owns_children() const {
    if (const auto* list = std::get_if<std::shared_ptr<List>>(&storage_)) return *list && list->use_count() == 1 && !(*list)->empty();
    if (const auto* dict = std::get_if<std::shared_ptr<Dict>>(&storage_)) return *dict && dict->use_count() == 1 && !(*dict)->empty();
    return false;
}

void Value::move_children_into(std::vector<Value>& pending) {
    if (!owns_children()) return;
    if (is_list()) {
        for (Value& item : as_list()) pending.push_back(std::move(item));
        as_list().clear();
    } else {
        for (auto& [key, item] : as_dict()) pending.push_back(std::move(item));
        as_dict().clear();
    }
}

namespace {

void check_value_depth(int depth) {
    if (depth > kMaxValueDepth)
        throw Error(fmt::format("a list or dict nested more than {} deep (or one that contains itself)", kMaxValueDepth));
}

bool reaches(const Value& from, const Value& target, int depth) {
    check_value_depth(depth);
    if (from.same_container(target)) return true;
    if (from.is_list()) {
        for (const Value& item : from.as_list())
            if (reaches(item, target, depth + 1)) return true;
    } else if (from.is_dict()) {
        for (const auto& [key, item] : from.as_dict())
            if (reaches(item, target, depth + 1)) return true;
    }
    return false;
}

}  // namespace

void check_insertable(const Value& container, const Value& item) {
    if (reaches(item, container, 1)) throw Error(fmt::format("a {} cannot contain itself", container.type_name()));
}

bool Value::same_container(const Value& other) const {
    if (is_list() && other.is_list()) return &as_list() == &other.as_list();
    if (is_dict() && other.is_dict()) return &as_dict() == &other.as_dict();
    return false;
}

double Value::as_double() const {
    return is_int() ? static_cast<double>(as_int()) : std::get<double>(storage_);
}

bool Value::truthy() const {
    return std::visit(
        [](const auto& v) -> bool {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, Undefined> || std::is_same_v<T, None>) return false;
            else if constexpr (std::is_same_v<T, bool>) return v;
            else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, double>) return v != 0;
            else if constexpr (std::is_same_v<T, std::string>) return !v.empty();
            else if constexpr (std::is_same_v<T, std::shared_ptr<Function>>) return true;
            else return !v->empty();
        },
        storage_);
}

namespace {

std::string python_float(double d) {
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e16) return fmt::format("{:.1f}", d);
    return fmt::format("{}", d);
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    out += fmt::format("\\u{:04x}", static_cast<int>(c));
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

}  // namespace

std::string Value::to_output() const {
    if (is_undefined()) return "";
    if (is_none()) return "None";
    if (is_bool()) return as_bool() ? "True" : "False";
    if (is_int()) return std::to_string(as_int());
    if (std::holds_alternative<double>(storage_)) return python_float(as_double());
    if (is_string()) return as_string();
    if (is_callable()) return "<function>";
    return to_json();  // lists and dicts: close enough to Python's repr for templates
}

std::string Value::to_json(int indent, int depth) const {
    check_value_depth(depth);
    auto line_break = [indent](int level) {
        return indent >= 0 ? std::string(1, '\n').append(static_cast<std::size_t>(indent * level), ' ') : std::string();
    };
    const std::string newline = line_break(depth + 1);
    const std::string close = line_break(depth);
    const std::string comma = indent >= 0 ? "," : ", ";
    if (is_undefined() || is_none()) return "null";
    if (is_bool()) return as_bool() ? "true" : "false";
    if (is_number() || is_callable()) return is_callable() ? "null" : to_output();
    if (is_string()) return json_string(as_string());
    std::string out;
    if (is_list()) {
        if (as_list().empty()) return "[]";
        out = "[";
        for (std::size_t i = 0; i < as_list().size(); ++i) {
            out += (i ? comma : "") + newline + as_list()[i].to_json(indent, depth + 1);
            check_text_size(out.size());
        }
        return out + close + "]";
    }
    if (as_dict().empty()) return "{}";
    out = "{";
    for (std::size_t i = 0; i < as_dict().size(); ++i) {
        const auto& [key, value] = as_dict()[i];
        out += (i ? comma : "") + newline + json_string(key) + ": " + value.to_json(indent, depth + 1);
        check_text_size(out.size());
    }
    return out + close + "}";
}

std::string Value::type_name() const {
    static constexpr const char* names[] = {"undefined", "none", "bool", "int", "float", "string", "list", "dict", "function"};
    return names[storage_.index()];
}

const Value* Value::find(std::string_view key) const {
    if (!is_dict()) return nullptr;
    for (const auto& [k, v] : as_dict()) {
        if (k == key) return &v;
    }
    return nullptr;
}

namespace {

bool equal(const Value& a, const Value& b, int depth) {
    check_value_depth(depth);
    if (a.is_number() && b.is_number()) return a.as_double() == b.as_double();
    if (a.is_bool() && b.is_bool()) return a.as_bool() == b.as_bool();
    if (a.is_string() && b.is_string()) return a.as_string() == b.as_string();
    if ((a.is_none() || a.is_undefined()) && (b.is_none() || b.is_undefined())) return a.is_none() == b.is_none();
    if (a.is_list() && b.is_list()) {
        const List &x = a.as_list(), &y = b.as_list();
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!equal(x[i], y[i], depth + 1)) return false;
        return true;
    }
    if (a.is_dict() && b.is_dict()) {
        const Dict &x = a.as_dict(), &y = b.as_dict();
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (x[i].first != y[i].first || !equal(x[i].second, y[i].second, depth + 1)) return false;
        return true;
    }
    return false;
}

}  // namespace

bool operator==(const Value& a, const Value& b) { return equal(a, b, 0); }

void check_text_size(std::size_t bytes) {
    if (bytes > kMaxTextBytes) throw Error(fmt::format("a string grew past {} MiB", kMaxTextBytes >> 20));
}

Value CallArgs::get(std::size_t index, std::string_view name, Value fallback) const {
    for (const auto& [key, value] : keyword) {
        if (key == name) return value;
    }
    return index < positional.size() ? positional[index] : fallback;
}

}  // namespace forge::llm::jinja
