#include "models/llm/grammar/regex_grammar.h"

#include "core/error.h"
#include "core/utf8.h"
#include "models/llm/grammar/grammar_limits.h"
#include "models/llm/grammar/matcher.h"
#include "models/llm/grammar/utf8_ranges.h"

#include <fmt/format.h>

namespace forge::llm::grammar {

namespace {

using Sequence = GrammarBuilder::Sequence;
using Ranges = std::vector<CodepointRange>;

constexpr int kMaxGroupDepth = 64;  // the parser recurses per group
const Ranges kDigit{{'0', '9'}};
const Ranges kWord{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
const Ranges kSpace{{'\t', '\r'}, {' ', ' '}};

// Recursive descent over the pattern, emitting grammar symbols as it goes.
class RegexCompiler {
public:
    RegexCompiler(GrammarBuilder& b, std::string_view pattern, bool json_string) : b_(b), p_(pattern), json_(json_string) {}

    // The whole pattern; `anchored_start/end` report ^ and $.
    Symbol compile(bool& anchored_start, bool& anchored_end) {
        anchored_start = eat('^');
        std::string_view body = p_;
        anchored_end = !body.empty() && body.back() == '$' && !escaped_at(body.size() - 1);
        end_ = anchored_end ? p_.size() - 1 : p_.size();
        const Symbol s = alternation();
        if (pos_ != end_) fail_here(fmt::format("unexpected '{}'", p_[pos_]));
        return s;
    }

    // Any characters (the unanchored side of a pattern).
    Symbol anything() { return b_.repeat("any", {characters(complement(Ranges{}))}, 0, -1); }

private:
    [[noreturn]] void fail_here(const std::string& what) const {
        throw Error(fmt::format("regex \"{}\" at offset {}: {}", shown(), pos_, what));
    }
    // The pattern for an error message: a long one only by its start (errors end in responses).
    std::string shown() const { return p_.size() <= 80 ? std::string(p_) : fmt::format("{}...", p_.substr(0, 77)); }
    bool escaped_at(std::size_t i) const {
        std::size_t slashes = 0;
        while (i > slashes && p_[i - 1 - slashes] == '\\') ++slashes;
        return slashes % 2 == 1;
    }
    bool at_end() const { return pos_ >= end_; }
    char peek() const { return p_[pos_]; }
    bool eat(char c) {
        if (pos_ < p_.size() && p_[pos_] == c) return ++pos_, true;
        return false;
    }

    Symbol alternation() {
        std::vector<Sequence> alternatives{concatenation()};
        while (!at_end() && eat('|')) alternatives.push_back(concatenation());
        return b_.rule("alt", std::move(alternatives));
    }

    Sequence concatenation() {
        Sequence sequence;
        while (!at_end() && peek() != '|' && peek() != ')') {
            const Sequence atom_symbols = quantified();
            sequence.insert(sequence.end(), atom_symbols.begin(), atom_symbols.end());
        }
        return sequence;
    }

    Sequence quantified() {
        Sequence item = atom();
        int min = 1, max = 1;
        if (at_end()) return item;
        if (eat('*')) min = 0, max = -1;
        else if (eat('+')) min = 1, max = -1;
        else if (eat('?')) min = 0, max = 1;
        else if (peek() == '{' && braces(min, max)) {
        } else return item;
        eat('?');  // lazy: the set of matches is the same
        if (!at_end() && (peek() == '*' || peek() == '+' || peek() == '{')) fail_here("a quantifier cannot follow a quantifier");
        return {b_.repeat("repeat", item, min, max)};
    }

    bool braces(int& min, int& max) {  // {n} {n,} {n,m}; a '{' not starting one is a literal
        const std::size_t start = pos_;
        ++pos_;
        if (!count(min)) return pos_ = start, false;
        max = min;
        if (eat(',')) {
            if (!count(max)) max = -1;
        }
        if (!eat('}')) return pos_ = start, false;
        if (max >= 0 && max < min) fail_here("repetition {n,m} with m < n");
        return true;
    }

    // The digits of a repetition count; one past kMaxRepeat is an error, not literal text.
    bool count(int& out) {
        const std::size_t first = pos_;
        while (!at_end() && std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
        const std::string_view digits = p_.substr(first, pos_ - first);
        if (digits.empty()) return false;
        out = 0;
        for (char d : digits) {
            out = out * 10 + (d - '0');
            if (out > kMaxRepeat) {
                pos_ = first;
                throw GrammarLimitError(fmt::format("regex \"{}\" at offset {}: repetition count {} is over the supported {}", shown(),
                                                    first, digits.size() <= 20 ? std::string(digits) : fmt::format("{}...", digits.substr(0, 20)),
                                                    kMaxRepeat));
            }
        }
        return true;
    }

    Sequence atom() {
        const char c = peek();
        if (c == '(') {
            if (++groups_open_ > kMaxGroupDepth) fail_here("groups nested too deep");
            ++pos_;
            if (eat('?')) {
                if (!eat(':')) fail_here("lookaround and named groups are not supported");
            }
            const Symbol inner = alternation();
            if (!eat(')')) fail_here("missing ')'");
            --groups_open_;
            return {inner};
        }
        if (c == '[') return {bracket()};
        if (c == '.') {
            ++pos_;
            return {characters(complement(Ranges{{'\n', '\n'}}))};
        }
        if (c == '\\') return {escape_atom()};
        if (c == '*' || c == '+' || c == '?') fail_here("nothing to repeat");
        if (c == '^' || c == '$') fail_here("anchors are supported only at the ends of the pattern");
        return {characters({next_codepoint()})};
    }

    // One UTF-8 character of the pattern (as its range [cp, cp]).
    CodepointRange next_codepoint() {
        const std::optional<utf8::Decoded> d = utf8::decode(p_, pos_);
        if (!d) fail_here("invalid UTF-8");
        pos_ += d->length;
        const auto cp = static_cast<std::uint32_t>(d->codepoint);
        return {cp, cp};
    }

    std::uint32_t hex_digits(int n) {
        std::uint32_t v = 0;
        for (int k = 0; k < n; ++k, ++pos_) {
            if (at_end() || !std::isxdigit(static_cast<unsigned char>(peek()))) fail_here("bad hex escape");
            v = v * 16 + static_cast<std::uint32_t>(std::stoi(std::string(1, peek()), nullptr, 16));
        }
        return v;
    }

    // After '\\': a class (\d ...) or one character.
    Ranges escape_ranges(bool& is_class) {
        ++pos_;
        if (at_end()) fail_here("trailing backslash");
        const char e = p_[pos_++];
        is_class = true;
        switch (e) {
            case 'd': return kDigit;
            case 'w': return kWord;
            case 's': return kSpace;
            case 'D': return complement(normalize(kDigit));
            case 'W': return complement(normalize(kWord));
            case 'S': return complement(normalize(kSpace));
            default: break;
        }
        is_class = false;
        std::uint32_t cp = 0;
        switch (e) {
            case 'n': cp = '\n'; break;
            case 't': cp = '\t'; break;
            case 'r': cp = '\r'; break;
            case 'f': cp = '\f'; break;
            case 'v': cp = '\v'; break;
            case '0': cp = 0; break;
            case 'x': cp = hex_digits(2); break;
            case 'u': cp = hex_digits(4); break;
            default:
                if (std::isalnum(static_cast<unsigned char>(e))) {
                    --pos_;
                    fail_here(fmt::format("the escape \\{} is not supported", e));
                }
                cp = static_cast<unsigned char>(e);
        }
        return {{cp, cp}};
    }

    Symbol escape_atom() {
        bool is_class = false;
        return characters(escape_ranges(is_class));
    }

    Symbol bracket() {
        ++pos_;  // '['
        const bool negated = eat('^');
        Ranges ranges;
        bool first = true;
        while (pos_ < p_.size() && (p_[pos_] != ']' || first)) {
            first = false;
            bool is_class = false;
            CodepointRange r{};
            if (p_[pos_] == '\\') {
                const Ranges escaped = escape_ranges(is_class);
                if (is_class) {  // \d inside a class adds the whole class
                    ranges.insert(ranges.end(), escaped.begin(), escaped.end());
                    continue;
                }
                r = escaped.front();
            } else {
                r = next_codepoint();
            }
            if (pos_ + 1 < p_.size() && p_[pos_] == '-' && p_[pos_ + 1] != ']') {
                ++pos_;
                bool hi_class = false;
                const CodepointRange hi = p_[pos_] == '\\' ? escape_ranges(hi_class).front() : next_codepoint();
                if (hi_class || hi.first < r.first) fail_here("bad range in a character class");
                r.last = hi.first;
            }
            ranges.push_back(r);
        }
        if (!eat(']')) fail_here("missing ']'");
        Ranges normalized = normalize(std::move(ranges));
        return characters(negated ? complement(normalized) : normalized);
    }

    // A symbol for one character out of `ranges`; in JSON-string mode the characters JSON
    // escapes are matched in their escaped spelling.
    Symbol characters(Ranges ranges) {
        ranges = normalize(std::move(ranges));
        if (!json_) return codepoint_class(b_, ranges);
        Ranges plain;
        std::vector<Sequence> alternatives;
        for (CodepointRange r : ranges) {
            for (std::uint32_t cp = r.first; cp <= std::min<std::uint32_t>(r.last, 0x7F); ++cp) {
                if (cp < 0x20 || cp == '"' || cp == '\\') alternatives.push_back(b_.literal(json_escape(cp)));
            }
        }
        plain = intersect_plain(ranges);
        if (!plain.empty()) alternatives.push_back({codepoint_class(b_, plain)});
        if (alternatives.empty()) fail_here("a character class that matches nothing");
        return b_.rule("char", std::move(alternatives));
    }

    static std::string json_escape(std::uint32_t cp) {
        switch (cp) {
            case '"': return "\\\"";
            case '\\': return "\\\\";
            case '\n': return "\\n";
            case '\t': return "\\t";
            case '\r': return "\\r";
            case '\b': return "\\b";
            case '\f': return "\\f";
            default: return fmt::format("\\u{:04x}", cp);
        }
    }

    static Ranges intersect_plain(const Ranges& ranges) {
        const Ranges special = normalize({{0, 0x1F}, {'"', '"'}, {'\\', '\\'}});
        const Ranges allowed = complement(special);
        Ranges out;
        for (CodepointRange a : ranges) {
            for (CodepointRange b : allowed) {
                const std::uint32_t first = std::max(a.first, b.first), last = std::min(a.last, b.last);
                if (first <= last) out.push_back({first, last});
            }
        }
        return out;
    }

    GrammarBuilder& b_;
    std::string_view p_;
    bool json_;
    std::size_t pos_ = 0, end_ = 0;
    int groups_open_ = 0;
};

}  // namespace

std::shared_ptr<const Grammar> compile_regex(std::string_view pattern) {
    GrammarBuilder builder;
    RegexCompiler compiler(builder, pattern, false);
    bool start = false, end = false;
    const Symbol body = compiler.compile(start, end);
    const Symbol root = builder.rule("root", {{body}});
    auto grammar = std::make_shared<const Grammar>(std::move(builder).build(root.index));
    check_first_state(grammar);
    return grammar;
}

Symbol json_string_regex(GrammarBuilder& builder, std::string_view pattern) {
    RegexCompiler compiler(builder, pattern, true);
    bool start = false, end = false;
    const Symbol body = compiler.compile(start, end);
    // Unanchored on both sides, a pattern that can match nothing is found in every string:
    // "anything" alone says so without one parse per place the empty match could sit.
    if (!start && !end && builder.nullable(body)) return builder.rule("pattern", {{builder.byte('"'), compiler.anything(), builder.byte('"')}});
    Sequence sequence{builder.byte('"')};
    if (!start) sequence.push_back(compiler.anything());
    sequence.push_back(body);
    if (!end) sequence.push_back(compiler.anything());
    sequence.push_back(builder.byte('"'));
    return builder.rule("pattern", {std::move(sequence)});
}

std::string format_pattern(std::string_view format) {
    static constexpr std::string_view kDate = R"([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))";
    static constexpr std::string_view kTime = R"(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))";
    if (format == "date") return fmt::format("^{}$", kDate);
    if (format == "time") return fmt::format("^{}$", kTime);
    if (format == "date-time") return fmt::format("^{}T{}$", kDate, kTime);
    if (format == "uuid") return "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
    return "";
}

}  // namespace forge::llm::grammar
