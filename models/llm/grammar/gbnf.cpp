#include "models/llm/grammar/gbnf.h"

#include "core/utf8.h"
#include "models/llm/grammar/grammar_limits.h"
#include "models/llm/grammar/matcher.h"
#include "models/llm/grammar/utf8_ranges.h"
#include "models/llm/tokenizer/utf8.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <vector>

namespace forge::llm::grammar {

GbnfError::GbnfError(std::size_t line, std::size_t column, const std::string& what)
    : Error(fmt::format("GBNF grammar, line {}, column {}: {}", line, column, what)), line_(line), column_(column) {}

namespace {

using Sequence = GrammarBuilder::Sequence;
using Ranges = std::vector<CodepointRange>;

// The parser recurses once per open parenthesis; this keeps a hostile `((((...` off the stack's end.
constexpr int kMaxGroupDepth = 128;

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A rule name as the text uses it: where it was first mentioned and where (if) defined.
struct NamedRule {
    std::uint32_t id = 0;
    std::size_t first_use = 0;
    std::optional<std::size_t> definition;
};

// Recursive descent over the text, in the shape of llama.cpp's parser (parse_rule,
// parse_alternates, parse_sequence), emitting the engine's symbols as it goes.
class GbnfParser {
public:
    GbnfParser(GrammarBuilder& builder, std::string_view text) : b_(builder), text_(text) {}

    // Every rule; returns the root's id.
    std::uint32_t parse() {
        skip_space(true);
        while (!at_end()) rule_definition();
        const std::pair<const std::string, NamedRule>* undefined = nullptr;  // the first one the text uses
        for (const auto& entry : rules_) {
            if (!entry.second.definition && (undefined == nullptr || entry.second.first_use < undefined->second.first_use)) undefined = &entry;
        }
        if (undefined != nullptr) fail_at(undefined->second.first_use, fmt::format("rule '{}' is used but never defined", undefined->first));
        const auto root = rules_.find("root");
        if (root == rules_.end() || !root->second.definition) fail_at(text_.size(), "the grammar has no 'root' rule (where matching starts)");
        return root->second.id;
    }

private:
    [[noreturn]] void fail_at(std::size_t offset, const std::string& what) const {
        std::size_t line = 1, line_start = 0;
        for (std::size_t i = 0; i < offset && i < text_.size(); ++i) {
            if (text_[i] == '\n') ++line, line_start = i + 1;
        }
        throw GbnfError(line, offset - line_start + 1, what);
    }
    [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }
    // What stands at the parse position, for "expected X, found Y".
    std::string found() const {
        if (at_end()) return "the end of the grammar";
        const char c = peek();
        if (c == '\n' || c == '\r') return "the end of the line";
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) return fmt::format("byte 0x{:02X}", static_cast<unsigned char>(c));
        return fmt::format("'{}'", c);
    }

    bool at_end() const { return pos_ >= text_.size(); }
    char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

    // Spaces, tabs and comments; line ends too where the rule goes on (`newline_ok`).
    void skip_space(bool newline_ok) {
        while (!at_end()) {
            const char c = peek();
            if (c == '#') {
                while (!at_end() && peek() != '\n' && peek() != '\r') ++pos_;
            } else if (c == ' ' || c == '\t' || (newline_ok && (c == '\n' || c == '\r'))) {
                ++pos_;
            } else {
                return;
            }
        }
    }

    std::string_view name() {
        const std::size_t start = pos_;
        while (!at_end() && is_name_char(peek())) ++pos_;
        if (pos_ == start) fail(fmt::format("expected a rule name (letters, digits, '-'), found {}", found()));
        return text_.substr(start, pos_ - start);
    }

    NamedRule& named(std::string_view name, std::size_t at) {
        auto it = rules_.find(name);
        if (it == rules_.end()) it = rules_.emplace(std::string(name), NamedRule{b_.declare(std::string(name)), at, std::nullopt}).first;
        return it->second;
    }

    // name ::= alternatives <end of line>
    void rule_definition() {
        const std::size_t start = pos_;
        const std::string_view rule_name = name();
        NamedRule& rule = named(rule_name, start);
        if (rule.definition) {
            fail_at(start, fmt::format("rule '{}' is defined twice (first on line {})", rule_name, line_of(*rule.definition)));
        }
        rule.definition = start;
        skip_space(false);
        if (text_.substr(pos_, 3) != "::=") fail(fmt::format("expected '::=' after the rule name '{}', found {}", rule_name, found()));
        pos_ += 3;
        skip_space(true);
        current_rule_ = std::string(rule_name);
        b_.define(rule.id, alternatives(false));
        if (peek() == '\r') pos_ += peek(1) == '\n' ? 2 : 1;
        else if (peek() == '\n') ++pos_;
        else if (!at_end()) fail(fmt::format("expected the end of the line after rule '{}', found {}", rule_name, found()));
        skip_space(true);
    }

    std::size_t line_of(std::size_t offset) const {
        std::size_t line = 1;
        for (std::size_t i = 0; i < offset; ++i) line += text_[i] == '\n';
        return line;
    }

    // sequence ( '|' sequence )*; a line end after '|' continues the rule.
    std::vector<Sequence> alternatives(bool nested) {
        std::vector<Sequence> result{sequence(nested)};
        while (peek() == '|') {
            ++pos_;
            skip_space(true);
            result.push_back(sequence(nested));
        }
        return result;
    }

    // Items and their repetitions, until something that is neither (a '|', ')', line end).
    Sequence sequence(bool nested) {
        Sequence result;
        std::optional<std::size_t> last_item;  // where the item a repetition applies to starts in `result`
        while (!at_end()) {
            const char c = peek();
            if (c == '"' || c == '[' || c == '(' || c == '.' || is_name_char(c)) {
                last_item = result.size();
                const Sequence item = this->item();
                result.insert(result.end(), item.begin(), item.end());
            } else if (c == '*' || c == '+' || c == '?' || c == '{') {
                if (!last_item) fail(fmt::format("'{}' has nothing before it to repeat", c));
                int min = 0, max = -1;
                repetition(min, max);
                const Sequence repeated(result.begin() + static_cast<std::ptrdiff_t>(*last_item), result.end());
                result.resize(*last_item);
                result.push_back(b_.repeat(current_rule_ + "-repeat", repeated, min, max));
            } else {
                break;
            }
            skip_space(nested);
        }
        return result;
    }

    Sequence item() {
        const char c = peek();
        if (c == '"') return literal();
        if (c == '[') return {character_class()};
        if (c == '.') {
            ++pos_;
            return {codepoint_class(b_, complement(Ranges{}))};
        }
        if (c == '(') return {group()};
        const std::size_t start = pos_;
        return {Symbol{Symbol::Kind::Rule, named(name(), start).id}};
    }

    Symbol group() {
        const std::size_t open = pos_;
        if (++depth_ > kMaxGroupDepth) fail(fmt::format("parentheses nested deeper than {}", kMaxGroupDepth));
        ++pos_;
        skip_space(true);
        std::vector<Sequence> inner = alternatives(true);
        if (peek() != ')') {
            if (at_end()) fail_at(open, "this '(' is never closed");
            fail(fmt::format("expected ')' or '|', found {}", found()));
        }
        ++pos_;
        --depth_;
        return b_.rule(current_rule_ + "-group", std::move(inner));
    }

    // * + ? {m} {m,} {m,n}, spaces allowed inside the braces as llama.cpp allows them.
    void repetition(int& min, int& max) {
        const char c = text_[pos_++];
        if (c != '{') {
            min = c == '+' ? 1 : 0;
            max = c == '?' ? 1 : -1;
            return;
        }
        skip_space(false);
        min = count();
        skip_space(false);
        if (peek() == '}') {
            ++pos_;
            max = min;
            return;
        }
        if (peek() != ',') fail(fmt::format("expected ',' or '}}' in a repetition {{m,n}}, found {}", found()));
        ++pos_;
        skip_space(false);
        max = is_digit(peek()) ? count() : -1;
        skip_space(false);
        if (peek() != '}') fail(fmt::format("expected '}}' to close the repetition, found {}", found()));
        ++pos_;
        if (max >= 0 && max < min) fail(fmt::format("repetition {{{},{}}}: the most is less than the least", min, max));
    }

    int count() {
        const std::size_t start = pos_;
        if (!is_digit(peek())) fail(fmt::format("expected a number in a repetition, found {}", found()));
        long long value = 0;
        while (is_digit(peek())) {
            value = value * 10 + (peek() - '0');
            ++pos_;
            if (value > kMaxRepeat) {
                const std::size_t line = line_of(start);
                throw GrammarLimitError(fmt::format("GBNF grammar, line {}: repetition count {}... is over the supported {}", line,
                                                    text_.substr(start, std::min<std::size_t>(pos_ - start, 20)), kMaxRepeat));
            }
        }
        return static_cast<int>(value);
    }

    // "...": its characters in order.
    Sequence literal() {
        const std::size_t open = pos_++;
        std::string bytes;
        while (peek() != '"') {
            if (at_end()) fail_at(open, "this string is never closed (missing '\"')");
            llm::utf8::append(bytes, character());
        }
        ++pos_;
        return b_.literal(bytes);
    }

    // [...] or [^...]: one character out of ranges.
    Symbol character_class() {
        const std::size_t open = pos_++;
        const bool negated = peek() == '^';
        if (negated) ++pos_;
        Ranges ranges;
        while (peek() != ']') {
            if (at_end()) fail_at(open, "this '[' is never closed (missing ']')");
            const std::size_t first_at = pos_;
            CodepointRange range{character(), 0};
            range.last = range.first;
            if (peek() == '-' && peek(1) != ']' && pos_ + 1 < text_.size()) {
                ++pos_;
                range.last = character();
                if (range.last < range.first) fail_at(first_at, "a range whose end comes before its start");
            }
            ranges.push_back(range);
        }
        ++pos_;
        if (ranges.empty()) fail_at(open, "an empty character class matches nothing");
        Ranges normalized = normalize(std::move(ranges));
        if (negated) normalized = complement(normalized);
        if (normalized.empty()) fail_at(open, "this character class matches no character");
        return codepoint_class(b_, std::move(normalized));
    }

    // One character of a literal or class: an escape or one UTF-8 character of the text.
    std::uint32_t character() {
        const std::size_t start = pos_;
        if (peek() != '\\') {
            const std::optional<forge::utf8::Decoded> d = forge::utf8::decode(text_, pos_);
            if (!d) fail("invalid UTF-8");
            pos_ += d->length;
            return checked_codepoint(static_cast<std::uint32_t>(d->codepoint), start);
        }
        ++pos_;
        const char e = peek();
        if (at_end()) fail("a '\\' at the end of the grammar");
        ++pos_;
        switch (e) {
            case 'n': return '\n';
            case 'r': return '\r';
            case 't': return '\t';
            case '\\': case '"': case '[': case ']': return static_cast<std::uint32_t>(e);
            case 'x': return checked_codepoint(hex(2), start);
            case 'u': return checked_codepoint(hex(4), start);
            case 'U': return checked_codepoint(hex(8), start);
            default: fail_at(start, fmt::format("unknown escape '\\{}' (known: \\n \\r \\t \\\\ \\\" \\[ \\] \\xHH \\uHHHH \\UHHHHHHHH)", e));
        }
    }

    std::uint32_t hex(int digits) {
        std::uint32_t value = 0;
        for (int i = 0; i < digits; ++i, ++pos_) {
            const char c = peek();
            int v = -1;
            if (c >= '0' && c <= '9') v = c - '0';
            else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
            if (v < 0) fail(fmt::format("expected {} hex digits in the escape, found {}", digits, found()));
            value = value * 16 + static_cast<std::uint32_t>(v);
        }
        return value;
    }

    std::uint32_t checked_codepoint(std::uint32_t cp, std::size_t at) const {
        if (cp > kMaxCodepoint) fail_at(at, fmt::format("U+{:X} is past the last Unicode code point U+10FFFF", cp));
        if (cp >= 0xD800 && cp <= 0xDFFF) fail_at(at, fmt::format("U+{:X} is a surrogate, not a character", cp));
        return cp;
    }

    GrammarBuilder& b_;
    std::string_view text_;
    std::size_t pos_ = 0;
    int depth_ = 0;
    std::string current_rule_;
    std::map<std::string, NamedRule, std::less<>> rules_;
};

}  // namespace

std::shared_ptr<const Grammar> compile_gbnf(std::string_view text) {
    GrammarBuilder builder;
    const std::uint32_t root = GbnfParser(builder, text).parse();
    auto grammar = std::make_shared<const Grammar>(std::move(builder).build(root));
    check_first_state(grammar);
    return grammar;
}

}  // namespace forge::llm::grammar
