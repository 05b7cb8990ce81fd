#include "models/llm/grammar/json_schema.h"

#include "models/llm/grammar/grammar_limits.h"
#include "models/llm/grammar/integer_range.h"
#include "models/llm/grammar/literal_trie.h"
#include "models/llm/grammar/matcher.h"
#include "models/llm/grammar/regex_grammar.h"
#include "models/llm/grammar/utf8_ranges.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace forge::llm::grammar {

using json = nlohmann::ordered_json;
using Sequence = GrammarBuilder::Sequence;

SchemaError::SchemaError(std::string path, const std::string& message)
    : Error(fmt::format("JSON schema at {}: {}", path, message)), path_(std::move(path)) {}

namespace {

constexpr int kMaxIndent = 20;
constexpr int kMaxFractionDigits = 16;
constexpr int kMaxSchemaDepth = 64;

// Keywords that describe without constraining: accepted and ignored.
const std::set<std::string, std::less<>> kAnnotations = {
    "title", "description", "default", "examples", "$schema", "$id", "$comment", "deprecated", "readOnly",
    "writeOnly", "$defs", "definitions", "strict", "name"};
const std::set<std::string, std::less<>> kConstraints = {
    "type", "properties", "required", "additionalProperties", "enum", "const", "items", "minItems", "maxItems",
    "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "anyOf", "oneOf", "allOf", "$ref"};

std::string child(const std::string& path, std::string_view key) {
    std::string escaped;
    for (char c : key) escaped += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return path + "/" + escaped;
}

class SchemaCompiler {
public:
    SchemaCompiler(GrammarBuilder& b, const json& root) : b_(b), root_(root) {}

    Symbol compile(const json& s, const std::string& path);
    Symbol ws();
    Symbol any_value();

private:
    Symbol compile_schema(const json& s, const std::string& path);
    [[noreturn]] void fail_at(const std::string& path, const std::string& message) const { throw SchemaError(path, message); }
    void check_keywords(const json& s, const std::string& path) const;
    Symbol reference(const std::string& ref, const std::string& path);
    Symbol typed(const json& s, const std::string& type, const std::string& path);
    Symbol object(const json& s, const std::string& path);
    Symbol array(const json& s, const std::string& path);
    Symbol string(const json& s, const std::string& path);
    Symbol integer(const json& s, const std::string& path);
    Symbol number(const json& s, const std::string& path);
    Symbol literal_json(const json& value) { return b_.rule("const", {b_.literal(value.dump())}); }
    Symbol string_char();
    Symbol quoted_string(int min, int max);
    Symbol plain_number();
    Symbol fraction();
    int count(const json& s, const char* key, const std::string& path, int fallback) const;

    GrammarBuilder& b_;
    const json& root_;
    std::map<std::string, std::uint32_t> refs_;  // "$ref" -> its rule (declared first: recursion)
    // The $refs being compiled since the last '{' or '[': meeting one again is a rule that
    // reaches itself before writing anything (left recursion), refused with its path.
    std::vector<std::string> unguarded_;
    std::optional<Symbol> any_value_;
    int depth_ = 0;
};

// The JSON texts of `list` when every schema in it is a `const` or an `enum` (with annotations
// at most), so an anyOf of thousands of constants is one trie, as an enum is; else nothing.
std::optional<std::vector<std::string>> constant_texts(const json& list) {
    std::vector<std::string> texts;
    for (const json& s : list) {
        if (!s.is_object() || s.contains("const") == s.contains("enum")) return std::nullopt;
        for (const auto& [key, value] : s.items()) {
            if (key != "const" && key != "enum" && !kAnnotations.contains(key)) return std::nullopt;
        }
        if (s.contains("const")) {
            texts.push_back(s["const"].dump());
            continue;
        }
        if (!s["enum"].is_array() || s["enum"].empty()) return std::nullopt;  // compiled alone, for its error
        for (const json& v : s["enum"]) texts.push_back(v.dump());
    }
    return texts;
}

void SchemaCompiler::check_keywords(const json& s, const std::string& path) const {
    for (const auto& [key, value] : s.items()) {
        if (kAnnotations.contains(key) || kConstraints.contains(key)) continue;
        fail_at(child(path, key), fmt::format("unsupported keyword \"{}\"", key));
    }
}

Symbol SchemaCompiler::ws() {
    ByteSet indent;
    indent.add(' ');
    indent.add('\t');
    Sequence newline = b_.literal("\n");
    newline.push_back(b_.repeat("indent", {b_.bytes(indent)}, 0, kMaxIndent));
    return b_.rule("ws", {{}, b_.literal(" "), newline});
}

Symbol SchemaCompiler::string_char() {
    // Any character but '"', '\' and the C0 controls, or an escape.
    const Symbol plain = codepoint_class(b_, complement(normalize({{'"', '"'}, {'\\', '\\'}, {0, 0x1F}})));
    ByteSet simple, hex;
    for (char c : std::string_view("\"\\/bfnrt")) simple.add(static_cast<std::uint8_t>(c));
    hex.add_range('0', '9'), hex.add_range('a', 'f'), hex.add_range('A', 'F');
    const Symbol h = b_.bytes(hex);
    return b_.rule("char", {{plain}, {b_.byte('\\'), b_.bytes(simple)}, {b_.byte('\\'), b_.byte('u'), h, h, h, h}});
}

Symbol SchemaCompiler::quoted_string(int min, int max) {
    Sequence body{b_.byte('"'), b_.repeat("chars", {string_char()}, min, max), b_.byte('"')};
    return b_.rule("string", {std::move(body)});
}

Symbol SchemaCompiler::fraction() {
    ByteSet digit;
    digit.add_range('0', '9');
    return b_.rule("frac", {{b_.byte('.'), b_.repeat("digits", {b_.bytes(digit)}, 1, kMaxFractionDigits)}});
}

Symbol SchemaCompiler::plain_number() {
    ByteSet digit, e, sign;
    digit.add_range('0', '9');
    e.add('e'), e.add('E'), sign.add('+'), sign.add('-');
    const Symbol exponent = b_.rule("exp", {{b_.bytes(e), b_.optional("sign", {b_.bytes(sign)}), b_.repeat("digits", {b_.bytes(digit)}, 1, 3)}});
    // "-0.5" is a number, so the integral part here is JSON's: an optional minus, then digits.
    ByteSet nonzero;
    nonzero.add_range('1', '9');
    const Symbol magnitude = b_.rule("int", {b_.literal("0"), {b_.bytes(nonzero), b_.repeat("digits", {b_.bytes(digit)}, 0, kMaxIntegerDigits - 1)}});
    const Symbol integral = b_.rule("int", {{b_.optional("minus", b_.literal("-")), magnitude}});
    return b_.rule("number", {{integral, b_.optional("frac", {fraction()}), b_.optional("exp", {exponent})}});
}

Symbol SchemaCompiler::any_value() {
    if (any_value_) return *any_value_;
    const std::uint32_t value = b_.declare("value");
    any_value_ = Symbol{Symbol::Kind::Rule, value};
    const Symbol w = ws(), str = quoted_string(0, -1), v = *any_value_;
    const Symbol member = b_.rule("member", {{str, w, b_.byte(':'), w, v}});
    Sequence more_members{w, b_.byte(','), w, member};
    Sequence members{member, b_.repeat("members", more_members, 0, -1), w};
    const Symbol object = b_.rule("object", {{b_.byte('{'), w, b_.optional("members", members), b_.byte('}')}});
    Sequence more_items{w, b_.byte(','), w, v};
    Sequence items{v, b_.repeat("items", more_items, 0, -1), w};
    const Symbol array = b_.rule("array", {{b_.byte('['), w, b_.optional("items", items), b_.byte(']')}});
    b_.define(value, {{object}, {array}, {str}, {plain_number()}, b_.literal("true"), b_.literal("false"), b_.literal("null")});
    return v;
}

int SchemaCompiler::count(const json& s, const char* key, const std::string& path, int fallback) const {
    if (!s.contains(key)) return fallback;
    const json& v = s[key];
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
        fail_at(child(path, key), "must be a non-negative integer");
    const auto n = v.get<std::uint64_t>();
    if (n > static_cast<std::uint64_t>(kMaxRepeat)) fail_at(child(path, key), fmt::format("{} is over the supported {}", n, kMaxRepeat));
    return static_cast<int>(n);
}

Symbol SchemaCompiler::reference(const std::string& ref, const std::string& path) {
    if (std::find(unguarded_.begin(), unguarded_.end(), ref) != unguarded_.end())
        fail_at(path, fmt::format("\"{}\" refers back to itself before any JSON is written (left recursion: "
                                  "the schema describes no finite value)", ref));
    if (auto it = refs_.find(ref); it != refs_.end()) return {Symbol::Kind::Rule, it->second};
    if (ref.empty() || ref[0] != '#') fail_at(path, fmt::format("only local references (#...) are supported, not \"{}\"", ref));
    const json* target = &root_;
    if (ref.size() > 1) {
        json::json_pointer pointer;
        try {
            pointer = json::json_pointer(ref.substr(1));
        } catch (const json::exception&) {
            fail_at(path, fmt::format("bad reference \"{}\"", ref));
        }
        if (!root_.contains(pointer)) fail_at(path, fmt::format("reference \"{}\" points at nothing", ref));
        target = &root_.at(pointer);
    }
    const std::uint32_t rule = b_.declare("ref");
    refs_.emplace(ref, rule);
    unguarded_.push_back(ref);
    const Symbol body = compile(*target, ref);
    unguarded_.pop_back();
    b_.define(rule, {{body}});
    return {Symbol::Kind::Rule, rule};
}

Symbol SchemaCompiler::compile(const json& s, const std::string& path) {
    // Subschemas nest by recursion here: a hostile schema must not exhaust the stack.
    struct Depth {
        int& d;
        explicit Depth(int& depth) : d(++depth) {}
        ~Depth() { --d; }
    } depth(depth_);
    if (depth_ > kMaxSchemaDepth) fail_at(path, fmt::format("nested deeper than {} subschemas", kMaxSchemaDepth));
    try {
        return compile_schema(s, path);
    } catch (const SchemaError&) {
        throw;
    } catch (const GrammarLimitError& e) {  // the grammar ran past a bound here: name this place
        fail_at(path, e.what());
    }
}

Symbol SchemaCompiler::compile_schema(const json& s, const std::string& path) {
    if (s.is_boolean()) {
        if (!s.get<bool>()) fail_at(path, "the schema false matches nothing");
        return any_value();
    }
    if (!s.is_object()) fail_at(path, "a schema must be an object or a boolean");
    check_keywords(s, path);
    if (s.contains("$ref")) {
        if (!s["$ref"].is_string()) fail_at(child(path, "$ref"), "must be a string");
        return reference(s["$ref"].get<std::string>(), child(path, "$ref"));
    }
    if (s.contains("const")) return literal_json(s["const"]);
    if (s.contains("enum")) {
        const json& values = s["enum"];
        if (!values.is_array() || values.empty()) fail_at(child(path, "enum"), "must be a non-empty array");
        std::vector<std::string> texts;
        for (const json& v : values) texts.push_back(v.dump());
        return literal_choice(b_, texts);
    }
    for (const char* key : {"anyOf", "oneOf"}) {
        if (!s.contains(key)) continue;
        const json& list = s[key];
        if (!list.is_array() || list.empty()) fail_at(child(path, key), "must be a non-empty array");
        if (auto texts = constant_texts(list)) return literal_choice(b_, *texts);  // a choice of constants: one trie
        std::vector<Sequence> alternatives;
        for (std::size_t i = 0; i < list.size(); ++i) alternatives.push_back({compile(list[i], child(child(path, key), std::to_string(i)))});
        return b_.rule(key, std::move(alternatives));
    }
    if (s.contains("allOf")) {
        const json& list = s["allOf"];
        if (!list.is_array() || list.size() != 1) fail_at(child(path, "allOf"), "only allOf with exactly one schema is supported");
        return compile(list[0], child(child(path, "allOf"), "0"));
    }
    if (!s.contains("type")) {
        if (s.contains("properties") || s.contains("additionalProperties") || s.contains("required")) return object(s, path);
        if (s.contains("items") || s.contains("minItems") || s.contains("maxItems")) return array(s, path);
        return any_value();
    }
    const json& type = s["type"];
    if (type.is_string()) return typed(s, type.get<std::string>(), path);
    if (!type.is_array() || type.empty()) fail_at(child(path, "type"), "must be a type name or a non-empty list of them");
    std::vector<Sequence> alternatives;
    for (std::size_t i = 0; i < type.size(); ++i) {
        if (!type[i].is_string()) fail_at(child(child(path, "type"), std::to_string(i)), "must be a type name");
        alternatives.push_back({typed(s, type[i].get<std::string>(), path)});
    }
    return b_.rule("types", std::move(alternatives));
}

Symbol SchemaCompiler::typed(const json& s, const std::string& type, const std::string& path) {
    if (type == "object") return object(s, path);
    if (type == "array") return array(s, path);
    if (type == "string") return string(s, path);
    if (type == "integer") return integer(s, path);
    if (type == "number") return number(s, path);
    if (type == "boolean") return b_.rule("boolean", {b_.literal("true"), b_.literal("false")});
    if (type == "null") return b_.rule("null", {b_.literal("null")});
    fail_at(child(path, "type"), fmt::format("unknown type \"{}\"", type));
}

// While the members or items of a '{' or '[' compile, $refs met before it are guarded: the
// bracket is written first.
class Guarded {
public:
    explicit Guarded(std::vector<std::string>& unguarded) : unguarded_(unguarded), saved_(std::exchange(unguarded, {})) {}
    ~Guarded() { unguarded_ = std::move(saved_); }
    Guarded(const Guarded&) = delete;
    Guarded& operator=(const Guarded&) = delete;

private:
    std::vector<std::string>& unguarded_;
    std::vector<std::string> saved_;
};

Symbol SchemaCompiler::object(const json& s, const std::string& path) {
    const Guarded guarded(unguarded_);
    const json empty = json::object();
    const json& properties = s.value("properties", empty);
    if (!properties.is_object()) fail_at(child(path, "properties"), "must be an object");
    std::set<std::string> required;
    if (s.contains("required")) {
        if (!s["required"].is_array()) fail_at(child(path, "required"), "must be an array of property names");
        for (const json& name : s["required"]) {
            if (!name.is_string()) fail_at(child(path, "required"), "must be an array of property names");
            if (!properties.contains(name.get<std::string>()))
                fail_at(child(path, "required"), fmt::format("\"{}\" is required but not among the properties", name.get<std::string>()));
            required.insert(name.get<std::string>());
        }
    }
    const Symbol w = ws();
    auto member = [&](const std::string& name, Symbol value) {
        Sequence kv = b_.literal(json(name).dump());
        kv.insert(kv.end(), {w, b_.byte(':'), w, value});
        return b_.rule("kv", {std::move(kv)});
    };
    // Properties in the schema's order: required ones always, optional ones maybe.
    std::vector<std::pair<Symbol, bool>> members;  // (key-value rule, required)
    for (const auto& [name, schema] : properties.items()) {
        members.emplace_back(member(name, compile(schema, child(child(path, "properties"), name))), required.contains(name));
    }
    // Extra members: additionalProperties (absent = none when properties are given).
    std::optional<Symbol> extra;
    const std::string extra_path = child(path, "additionalProperties");
    const json& additional = s.contains("additionalProperties") ? s["additionalProperties"] : json(properties.empty());
    if (!(additional.is_boolean() && !additional.get<bool>())) {
        const Symbol value = additional.is_boolean() ? any_value() : compile(additional, extra_path);
        extra = b_.rule("kv", {{quoted_string(0, -1), w, b_.byte(':'), w, value}});
    }
    const Symbol comma = b_.rule("comma", {{w, b_.byte(','), w}});
    // A member after the first is ", member"; the first is written bare. Build the list from the
    // back: tail(i) is what may follow once member i-1 is placed, first(i) is the list starting at i
    // when nothing is placed yet.
    const std::size_t n = members.size();
    std::vector<Sequence> tail(n + 1), first(n + 1);
    if (extra) {
        tail[n] = {b_.repeat("extra", {comma, *extra}, 0, -1)};
        first[n] = {b_.optional("extra", {*extra, tail[n][0]})};
    }
    for (std::size_t i = n; i-- > 0;) {
        const auto [kv, is_required] = members[i];
        Sequence with_comma{comma, kv};
        with_comma.insert(with_comma.end(), tail[i + 1].begin(), tail[i + 1].end());
        Sequence bare{kv};
        bare.insert(bare.end(), tail[i + 1].begin(), tail[i + 1].end());
        if (is_required) {
            tail[i] = {b_.rule("members", {with_comma})};
            first[i] = {b_.rule("members", {bare})};
        } else {
            tail[i] = {b_.rule("members", {with_comma, tail[i + 1]})};
            first[i] = {b_.rule("members", {bare, first[i + 1]})};
        }
    }
    Sequence body{b_.byte('{'), w};
    body.insert(body.end(), first[0].begin(), first[0].end());
    body.insert(body.end(), {w, b_.byte('}')});
    return b_.rule("object", {std::move(body)});
}

Symbol SchemaCompiler::array(const json& s, const std::string& path) {
    const Guarded guarded(unguarded_);
    const int min = count(s, "minItems", path, 0);
    const int max = s.contains("maxItems") ? count(s, "maxItems", path, 0) : -1;
    if (max >= 0 && max < min) fail_at(child(path, "maxItems"), "is below minItems");
    const Symbol item = s.contains("items") ? compile(s["items"], child(path, "items")) : any_value();
    const Symbol w = ws();
    Sequence body{b_.byte('['), w};
    if (max != 0) {
        Sequence next{w, b_.byte(','), w, item};
        Sequence items{item, b_.repeat("items", next, std::max(min - 1, 0), max < 0 ? -1 : max - 1), w};
        if (min == 0) body.push_back(b_.optional("items", items));
        else body.insert(body.end(), items.begin(), items.end());
    }
    body.push_back(b_.byte(']'));
    return b_.rule("array", {std::move(body)});
}

Symbol SchemaCompiler::string(const json& s, const std::string& path) {
    const int min = count(s, "minLength", path, 0);
    const int max = s.contains("maxLength") ? count(s, "maxLength", path, 0) : -1;
    if (max >= 0 && max < min) fail_at(child(path, "maxLength"), "is below minLength");
    if (s.contains("pattern") || s.contains("format")) {
        if (s.contains("minLength") || s.contains("maxLength"))
            fail_at(path, "minLength/maxLength together with pattern or format are not supported");
        std::string pattern;
        if (s.contains("pattern")) {
            if (!s["pattern"].is_string()) fail_at(child(path, "pattern"), "must be a string");
            if (s.contains("format")) fail_at(path, "pattern together with format is not supported");
            pattern = s["pattern"].get<std::string>();
        } else {
            if (!s["format"].is_string()) fail_at(child(path, "format"), "must be a string");
            const std::string format = s["format"].get<std::string>();
            pattern = format_pattern(format);
            if (pattern.empty()) fail_at(child(path, "format"), fmt::format("unsupported format \"{}\"", format));
        }
        try {
            return json_string_regex(b_, pattern);
        } catch (const SchemaError&) {
            throw;
        } catch (const Error& e) {
            fail_at(child(path, s.contains("pattern") ? "pattern" : "format"), e.what());
        }
    }
    return quoted_string(min, max);
}

std::optional<std::int64_t> integer_bound(const json& s, const char* key, bool exclusive, bool lower, const std::string& path) {
    if (!s.contains(key)) return std::nullopt;
    const json& v = s[key];
    if (exclusive && v.is_boolean()) throw SchemaError(child(path, key), "the draft-4 boolean form is not supported; give the bound");
    if (!v.is_number()) throw SchemaError(child(path, key), "must be a number");
    const double d = v.get<double>();
    if (std::abs(d) > 9e15) throw SchemaError(child(path, key), "bounds beyond 16 digits are not supported");
    double bound = lower ? std::ceil(d) : std::floor(d);
    if (exclusive && bound == d) bound += lower ? 1 : -1;
    return static_cast<std::int64_t>(bound);
}

Symbol SchemaCompiler::integer(const json& s, const std::string& path) {
    auto lo = integer_bound(s, "minimum", false, true, path), hi = integer_bound(s, "maximum", false, false, path);
    if (auto x = integer_bound(s, "exclusiveMinimum", true, true, path)) lo = lo ? std::max(*lo, *x) : *x;
    if (auto x = integer_bound(s, "exclusiveMaximum", true, false, path)) hi = hi ? std::min(*hi, *x) : *x;
    if (lo && hi && *lo > *hi) fail_at(path, fmt::format("no integer lies within the bounds [{}, {}]", *lo, *hi));
    return integer_range(b_, lo, hi);
}

Symbol SchemaCompiler::number(const json& s, const std::string& path) {
    if (s.contains("exclusiveMinimum") || s.contains("exclusiveMaximum"))
        fail_at(child(path, s.contains("exclusiveMinimum") ? "exclusiveMinimum" : "exclusiveMaximum"),
                "exclusive bounds on numbers are not supported (use integer, or minimum/maximum)");
    if (!s.contains("minimum") && !s.contains("maximum")) return plain_number();
    auto bound = [&](const char* key) -> std::optional<std::int64_t> {
        if (!s.contains(key)) return std::nullopt;
        const json& v = s[key];
        if (!v.is_number()) fail_at(child(path, key), "must be a number");
        const double d = v.get<double>();
        if (d != std::floor(d) || std::abs(d) > 9e15) fail_at(child(path, key), "number bounds must be integers (within 16 digits)");
        return static_cast<std::int64_t>(d);
    };
    const auto lo = bound("minimum"), hi = bound("maximum");
    if (lo && hi && *lo > *hi) fail_at(path, "minimum is above maximum");
    // x = sign * a.f. Within [lo, hi] with integer bounds: a in [L, H-1] with any fraction, or
    // a = H with a fraction of zeros (H the magnitude bound on that side of zero).
    ByteSet zero;
    zero.add('0');
    const Symbol zeros = b_.optional("zeros", {b_.byte('.'), b_.repeat("zeros", {b_.bytes(zero)}, 1, kMaxFractionDigits)});
    const Symbol any_fraction = b_.optional("frac", {fraction()});
    std::vector<Sequence> alternatives;
    auto side = [&](bool negative, std::int64_t m_lo, std::optional<std::int64_t> m_hi) {
        Sequence sign = negative ? b_.literal("-") : Sequence{};
        auto with = [&](Symbol magnitude, Symbol frac) {
            Sequence seq = sign;
            seq.insert(seq.end(), {magnitude, frac});
            alternatives.push_back(std::move(seq));
        };
        if (!m_hi) {
            with(integer_range(b_, m_lo, std::nullopt), any_fraction);
            return;
        }
        if (m_lo <= *m_hi - 1) with(integer_range(b_, m_lo, *m_hi - 1), any_fraction);
        with(integer_range(b_, *m_hi, *m_hi), zeros);
    };
    if (!hi || *hi >= 0) side(false, lo ? std::max<std::int64_t>(*lo, 0) : 0, hi);
    if (!lo || *lo < 0) {
        const std::int64_t m_lo = hi && *hi < 0 ? -*hi : 0;
        side(true, m_lo, lo ? std::optional<std::int64_t>(-*lo) : std::nullopt);
    }
    return b_.rule("number", std::move(alternatives));
}

}  // namespace

Symbol json_whitespace(GrammarBuilder& builder) {
    const json root;
    return SchemaCompiler(builder, root).ws();
}

Symbol json_schema_symbol(GrammarBuilder& builder, const json& schema, const json& root) {
    return SchemaCompiler(builder, root).compile(schema, "#");
}

std::shared_ptr<const Grammar> compile_json_schema(const json& schema) {
    GrammarBuilder builder;
    const Symbol value = json_schema_symbol(builder, schema, schema);
    const Symbol root = builder.rule("root", {{value}});
    try {
        auto grammar = std::make_shared<const Grammar>(std::move(builder).build(root.index));
        check_first_state(grammar);
        return grammar;
    } catch (const GrammarLimitError& e) {
        throw SchemaError("#", e.what());
    }
}

std::shared_ptr<const Grammar> compile_json_schema(const nlohmann::json& schema) {
    return compile_json_schema(json::parse(schema.dump()));
}

std::shared_ptr<const Grammar> json_object_grammar() {
    return compile_json_schema(json{{"type", "object"}});
}

}  // namespace forge::llm::grammar
