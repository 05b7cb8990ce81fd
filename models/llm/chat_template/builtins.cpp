#include "models/llm/chat_template/builtins.h"

#include "core/checked_math.h"
#include "core/error.h"
#include "models/llm/chat_template/limits.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <ctime>

namespace forge::llm::jinja {

namespace {

std::string transform(std::string s, int (*f)(int)) {
    for (char& c : s) c = static_cast<char>(f(static_cast<unsigned char>(c)));
    return s;
}

std::int64_t length_of(const Value& v) {
    if (v.is_string()) return static_cast<std::int64_t>(v.as_string().size());
    if (v.is_list()) return static_cast<std::int64_t>(v.as_list().size());
    if (v.is_dict()) return static_cast<std::int64_t>(v.as_dict().size());
    throw Error(fmt::format("object of type {} has no length", v.type_name()));
}

List items_of(const Value& dict) {
    List items;
    for (const auto& [key, value] : dict.as_dict()) items.push_back(List{Value(key), value});
    return items;
}

List split(const std::string& s, const Value& separator) {
    List parts;
    if (separator.is_undefined() || separator.is_none()) {  // Python: split on whitespace runs
        std::size_t at = 0;
        while (at < s.size()) {
            while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
            const std::size_t begin = at;
            while (at < s.size() && !std::isspace(static_cast<unsigned char>(s[at]))) ++at;
            if (at > begin) parts.emplace_back(s.substr(begin, at - begin));
        }
        return parts;
    }
    const std::string& sep = separator.as_string();
    check(!sep.empty(), "split(): empty separator");
    std::size_t begin = 0;
    for (std::size_t found; (found = s.find(sep, begin)) != std::string::npos; begin = found + sep.size()) {
        parts.emplace_back(s.substr(begin, found - begin));
    }
    parts.emplace_back(s.substr(begin));
    return parts;
}

std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    std::size_t count = 0;
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += from.size()) ++count;
    // The result's size before building it: a short `from` and a long `to` multiply the text.
    if (to.size() > from.size()) {
        const unsigned __int128 size = s.size() + static_cast<unsigned __int128>(count) * (to.size() - from.size());
        check_text_size(static_cast<std::size_t>(std::min<unsigned __int128>(size, kMaxTextBytes + 1)));
    }
    std::string out;
    std::size_t begin = 0;
    for (std::size_t at; (at = s.find(from, begin)) != std::string::npos; begin = at + from.size()) {
        out.append(s, begin, at - begin);
        out += to;
    }
    out.append(s, begin);
    return out;
}

// Jinja's int and float filters: the number, else the text parsed as one, else `fallback`.
Value to_float(const Value& in, const Value& fallback) {
    if (in.is_number()) return Value(in.as_double());
    if (in.is_bool()) return Value(in.as_bool() ? 1.0 : 0.0);
    if (!in.is_string()) return fallback;
    const std::string text = strip(in.as_string(), Value(), true, true);
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) return fallback;
    return Value(value);
}

Value to_int(const Value& in, const Value& fallback) {
    if (in.is_int()) return in;
    if (in.is_bool()) return Value(std::int64_t{in.as_bool()});
    if (in.is_number()) {
        if (const auto i = to_int64(in.as_double())) return Value(*i);
        return fallback;
    }
    if (!in.is_string()) return fallback;
    const std::string text = strip(in.as_string(), Value(), true, true);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc{} && end == text.data() + text.size() && !text.empty()) return Value(value);
    const Value number = to_float(in, Value());
    if (number.is_undefined()) return fallback;
    if (const auto i = to_int64(number.as_double())) return Value(*i);
    return fallback;
}

std::string title_case(std::string s) {
    bool start = true;
    for (char& c : s) {
        const bool alpha = std::isalpha(static_cast<unsigned char>(c));
        const int u = static_cast<unsigned char>(c);
        c = static_cast<char>(start && alpha ? std::toupper(u) : std::tolower(u));
        start = !alpha;
    }
    return s;
}

Value string_method(const std::string& s, std::string_view name, CallArgs& a) {
    if (name == "startswith") return s.starts_with(a.get(0, "prefix").as_string());
    if (name == "endswith") return s.ends_with(a.get(0, "suffix").as_string());
    if (name == "strip") return strip(s, a.get(0, "chars"), true, true);
    if (name == "lstrip") return strip(s, a.get(0, "chars"), true, false);
    if (name == "rstrip") return strip(s, a.get(0, "chars"), false, true);
    if (name == "split") return split(s, a.get(0, "sep"));
    if (name == "upper") return transform(s, std::toupper);
    if (name == "lower") return transform(s, std::tolower);
    if (name == "title") return title_case(s);
    if (name == "capitalize") return s.empty() ? s : transform(s.substr(0, 1), std::toupper) + transform(s.substr(1), std::tolower);
    if (name == "replace") return replace_all(s, a.get(0, "old").as_string(), a.get(1, "new").as_string());
    if (name == "find") return static_cast<std::int64_t>(s.find(a.get(0, "sub").as_string()));
    throw Error(fmt::format("unknown string method '{}'", name));
}

Value dict_method(const Value& self, std::string_view name, CallArgs& a) {
    if (name == "items") return items_of(self);
    if (name == "keys" || name == "values") {
        List out;
        for (const auto& [key, value] : self.as_dict()) out.push_back(name == "keys" ? Value(key) : value);
        return out;
    }
    if (name == "get") {
        const Value* found = self.find(a.get(0, "key").as_string());
        return found != nullptr ? *found : a.get(1, "default", Value(None{}));
    }
    throw Error(fmt::format("unknown dict method '{}'", name));
}

bool is_string_method(std::string_view n) {
    for (const auto m : {"startswith", "endswith", "strip", "lstrip", "rstrip", "split", "upper", "lower", "title",
                         "capitalize", "replace", "find"}) {
        if (n == m) return true;
    }
    return false;
}

}  // namespace

std::string strip(std::string_view s, const Value& chars, bool left, bool right) {
    const std::string set = chars.is_string() ? chars.as_string() : std::string(" \t\n\r\f\v");
    std::size_t begin = 0, end = s.size();
    if (left) {
        while (begin < end && set.find(s[begin]) != std::string::npos) ++begin;
    }
    if (right) {
        while (end > begin && set.find(s[end - 1]) != std::string::npos) --end;
    }
    return std::string(s.substr(begin, end - begin));
}

std::optional<Value> bound_method(const Value& self, std::string_view name) {
    const std::string method(name);
    if (self.is_string() && is_string_method(name)) {
        return Value(Function([self, method](CallArgs& a) { return string_method(self.as_string(), method, a); }));
    }
    if (self.is_dict() && (name == "items" || name == "keys" || name == "values" || name == "get")) {
        return Value(Function([self, method](CallArgs& a) { return dict_method(self, method, a); }));
    }
    if (self.is_list() && name == "append") {
        return Value(Function([self](CallArgs& a) {
            const Value item = a.get(0, "item");
            check_insertable(self, item);
            check(static_cast<std::int64_t>(self.as_list().size()) < kMaxListItems, "append(): a list grew past {} items",
                  kMaxListItems);
            self.as_list().push_back(item);
            return Value(None{});
        }));
    }
    return std::nullopt;
}

std::optional<Value> apply_filter(std::string_view name, const Value& in, CallArgs& a) {
    if (name == "trim") return strip(in.to_output(), a.get(0, "chars"), true, true);
    if (name == "length" || name == "count") return length_of(in);
    if (name == "tojson") {
        const Value indent = a.get(0, "indent");
        check(!indent.is_int() || (indent.as_int() >= 0 && indent.as_int() <= 100), "tojson(): indent must be 0 to 100");
        return in.to_json(indent.is_int() ? static_cast<int>(indent.as_int()) : -1);
    }
    if (name == "string") return in.to_output();
    if (name == "upper") return transform(in.to_output(), std::toupper);
    if (name == "lower") return transform(in.to_output(), std::tolower);
    if (name == "title") return title_case(in.to_output());
    if (name == "capitalize") return string_method(in.to_output(), "capitalize", a);
    if (name == "safe" || name == "escape" || name == "e") return name == "safe" ? in : Value(in.to_output());
    if (name == "int") return to_int(in, a.get(0, "default", Value(0)));
    if (name == "float") return to_float(in, a.get(0, "default", Value(0.0)));
    if (name == "default" || name == "d") {
        const bool use_default = in.is_undefined() || (a.get(1, "boolean", Value(false)).truthy() && !in.truthy());
        return use_default ? a.get(0, "default_value", Value("")) : in;
    }
    if (name == "replace") return replace_all(in.to_output(), a.get(0, "old").as_string(), a.get(1, "new").as_string());
    if (name == "items") return items_of(in);
    if (name == "list") return in.is_list() ? in : in.is_dict() ? Value(items_of(in)) : Value(List{});
    if (name == "first" || name == "last") {
        check(in.is_list() && !in.as_list().empty(), "filter {}: needs a non-empty list", name);
        return name == "first" ? in.as_list().front() : in.as_list().back();
    }
    if (name == "reverse") {
        if (in.is_string()) return std::string(in.as_string().rbegin(), in.as_string().rend());
        List out(in.as_list().rbegin(), in.as_list().rend());
        return out;
    }
    if (name == "join") {
        std::string out;
        const std::string sep = a.get(0, "d", Value("")).to_output();
        for (std::size_t i = 0; i < in.as_list().size(); ++i) {
            out += (i ? sep : "") + in.as_list()[i].to_output();
            check_text_size(out.size());
        }
        return out;
    }
    return std::nullopt;
}

std::optional<bool> apply_test(std::string_view name, const Value& in, CallArgs& a) {
    if (name == "defined") return !in.is_undefined();
    if (name == "undefined") return in.is_undefined();
    if (name == "none") return in.is_none();
    if (name == "string") return in.is_string();
    if (name == "number") return in.is_number() && !in.is_bool();
    if (name == "integer") return in.is_int();
    if (name == "float") return in.is_number() && !in.is_int();
    if (name == "boolean") return in.is_bool();
    if (name == "true") return in.is_bool() && in.as_bool();
    if (name == "false") return in.is_bool() && !in.as_bool();
    if (name == "mapping") return in.is_dict();
    if (name == "sequence") return in.is_list() || in.is_string();
    if (name == "iterable") return in.is_list() || in.is_string() || in.is_dict();
    if (name == "callable") return in.is_callable();
    if (name == "even" || name == "odd") return in.is_int() && (in.as_int() % 2 == 0) == (name == "even");
    if (name == "eq" || name == "equalto" || name == "==") return in == a.get(0, "other");
    return std::nullopt;
}

Dict global_functions() {
    Dict globals;
    globals.emplace_back("raise_exception", Function([](CallArgs& a) -> Value {
        throw Error(fmt::format("chat template raised an exception: {}", a.get(0, "message").to_output()));
    }));
    // namespace(a=1, b=2): a mutable object, so `set ns.a = ...` inside a loop is seen after it.
    globals.emplace_back("namespace", Function([](CallArgs& a) {
        Dict attributes;
        for (auto& [key, value] : a.keyword) attributes.emplace_back(key, value);
        return Value(std::move(attributes));
    }));
    globals.emplace_back("range", Function([](CallArgs& a) {
        const bool one = a.positional.size() == 1;
        const std::int64_t start = one ? 0 : a.get(0, "start").as_int();
        const std::int64_t stop = one ? a.get(0, "stop").as_int() : a.get(1, "stop").as_int();
        const std::int64_t step = a.positional.size() > 2 ? a.positional[2].as_int() : 1;
        check(step != 0, "range(): step must not be zero");
        // The item count first, in 128 bits: range() builds its list, so it is bounded.
        const __int128 span = step > 0 ? __int128{stop} - start : __int128{start} - stop;
        const __int128 count = span <= 0 ? 0 : (span + (step > 0 ? step : -__int128{step}) - 1) / (step > 0 ? step : -__int128{step});
        check(count <= kMaxListItems, "range(): {} items is more than the {} a template may build", static_cast<long long>(
              std::min<__int128>(count, INT64_MAX)), kMaxListItems);
        List out;
        out.reserve(static_cast<std::size_t>(count));
        for (__int128 k = 0; k < count; ++k) out.emplace_back(static_cast<std::int64_t>(start + k * step));
        return Value(std::move(out));
    }));
    // Llama 3.1+ templates print today's date.
    globals.emplace_back("strftime_now", Function([](CallArgs& a) {
        const std::time_t now = std::time(nullptr);
        std::tm local{};
        localtime_r(&now, &local);
        char buffer[128];
        const std::size_t n = std::strftime(buffer, sizeof buffer, a.get(0, "format").as_string().c_str(), &local);
        return Value(std::string(buffer, n));
    }));
    return globals;
}

}  // namespace forge::llm::jinja
