#include "models/llm/chat_template/value.h"

#include <fmt/format.h>

#include <cmath>

namespace forge::llm::jinja {

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
        }
        return out + close + "]";
    }
    if (as_dict().empty()) return "{}";
    out = "{";
    for (std::size_t i = 0; i < as_dict().size(); ++i) {
        const auto& [key, value] = as_dict()[i];
        out += (i ? comma : "") + newline + json_string(key) + ": " + value.to_json(indent, depth + 1);
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

bool operator==(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) return a.as_double() == b.as_double();
    if (a.is_bool() && b.is_bool()) return a.as_bool() == b.as_bool();
    if (a.is_string() && b.is_string()) return a.as_string() == b.as_string();
    if ((a.is_none() || a.is_undefined()) && (b.is_none() || b.is_undefined())) return a.is_none() == b.is_none();
    if (a.is_list() && b.is_list()) return a.as_list() == b.as_list();
    if (a.is_dict() && b.is_dict()) return a.as_dict() == b.as_dict();
    return false;
}

Value CallArgs::get(std::size_t index, std::string_view name, Value fallback) const {
    for (const auto& [key, value] : keyword) {
        if (key == name) return value;
    }
    return index < positional.size() ? positional[index] : fallback;
}

}  // namespace forge::llm::jinja
