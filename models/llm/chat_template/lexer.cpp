#include "models/llm/chat_template/lexer.h"

#include "core/error.h"

#include <cctype>

namespace forge::llm::jinja {

std::string describe_position(std::string_view source, std::size_t offset) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < source.size(); ++i) {
        if (source[i] == '\n') {
            ++line, column = 1;
        } else {
            ++column;
        }
    }
    return fmt::format("line {}, column {}", line, column);
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

class Lexer {
public:
    explicit Lexer(std::string_view source) : src_(source) {}

    std::vector<Token> run() {
        while (at_ < src_.size()) {
            const std::size_t open = next_tag();
            text(open);
            if (open >= src_.size()) break;
            tag();
        }
        tokens_.push_back({TokenKind::End, "", src_.size()});
        return std::move(tokens_);
    }

private:
    [[noreturn]] void fail_at(std::size_t offset, std::string_view what) const {
        throw Error(fmt::format("chat template {}: {}", describe_position(src_, offset), what));
    }

    std::size_t next_tag() const {
        for (std::size_t i = at_; i + 1 < src_.size(); ++i) {
            if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
        }
        return src_.size();
    }

    // Literal text up to `end`, trimmed for the tag that follows it.
    void text(std::size_t end) {
        std::string_view literal = src_.substr(at_, end - at_);
        at_ = end;
        if (end < src_.size()) {
            const char kind = src_[end + 1];
            const char modifier = end + 2 < src_.size() ? src_[end + 2] : '\0';
            if (modifier == '-') {
                while (!literal.empty() && is_space(literal.back())) literal.remove_suffix(1);
            } else if (kind != '{' && modifier != '+') {
                literal = lstrip_block_line(literal, end);
            }
        }
        if (!literal.empty()) tokens_.push_back({TokenKind::Text, std::string(literal), end - literal.size()});
    }

    // lstrip_blocks: spaces and tabs between the start of a line and a block tag go.
    std::string_view lstrip_block_line(std::string_view literal, std::size_t tag_offset) const {
        std::size_t cut = literal.size();
        while (cut > 0 && (literal[cut - 1] == ' ' || literal[cut - 1] == '\t')) --cut;
        const bool at_line_start = cut > 0 ? literal[cut - 1] == '\n' : tag_offset - literal.size() == 0 || src_[tag_offset - literal.size() - 1] == '\n';
        return at_line_start ? literal.substr(0, cut) : literal;
    }

    void tag() {
        const std::size_t start = at_;
        const char kind = src_[at_ + 1];
        at_ += 2;
        if (at_ < src_.size() && (src_[at_] == '-' || src_[at_] == '+')) ++at_;
        if (kind == '#') {
            const std::size_t close = src_.find("#}", at_);
            if (close == std::string_view::npos) fail_at(start, "unclosed comment");
            at_ = close + 2;
            after_tag(src_[close - 1] == '-', true);
            return;
        }
        const bool expression = kind == '{';
        tokens_.push_back({expression ? TokenKind::ExprBegin : TokenKind::StmtBegin, "", start});
        const char closer = expression ? '}' : '%';
        for (;;) {
            while (at_ < src_.size() && is_space(src_[at_])) ++at_;
            if (at_ >= src_.size()) fail_at(start, expression ? "unclosed {{" : "unclosed {%");
            const bool trim = src_[at_] == '-' && at_ + 2 < src_.size() + 0 && src_.substr(at_ + 1, 2) == std::string{closer, '}'};
            if (trim || src_.substr(at_, 2) == std::string{closer, '}'}) {
                tokens_.push_back({expression ? TokenKind::ExprEnd : TokenKind::StmtEnd, "", at_});
                at_ += trim ? 3 : 2;
                after_tag(trim, !expression);
                return;
            }
            token();
        }
    }

    // Whitespace after a tag: "-" strips all of it; trim_blocks drops one newline after a block.
    void after_tag(bool trim, bool block) {
        if (trim) {
            while (at_ < src_.size() && is_space(src_[at_])) ++at_;
        } else if (block) {
            if (src_.substr(at_, 2) == "\r\n") {
                at_ += 2;
            } else if (at_ < src_.size() && src_[at_] == '\n') {
                ++at_;
            }
        }
    }

    void token() {
        const char c = src_[at_];
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            const std::size_t begin = at_;
            while (at_ < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[at_])) || src_[at_] == '_')) ++at_;
            tokens_.push_back({TokenKind::Name, std::string(src_.substr(begin, at_ - begin)), begin});
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            const std::size_t begin = at_;
            while (at_ < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[at_])) || src_[at_] == '.')) ++at_;
            tokens_.push_back({TokenKind::Number, std::string(src_.substr(begin, at_ - begin)), begin});
        } else if (c == '\'' || c == '"') {
            string_literal(c);
        } else {
            operator_token();
        }
    }

    void string_literal(char quote) {
        const std::size_t begin = at_++;
        std::string value;
        while (at_ < src_.size() && src_[at_] != quote) {
            char c = src_[at_++];
            if (c == '\\' && at_ < src_.size()) {
                const char e = src_[at_++];
                c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
            }
            value += c;
        }
        if (at_ >= src_.size()) fail_at(begin, "unterminated string");
        ++at_;
        tokens_.push_back({TokenKind::String, std::move(value), begin});
    }

    void operator_token() {
        static constexpr std::string_view two[] = {"==", "!=", "<=", ">=", "//", "**"};
        for (const auto op : two) {
            if (src_.substr(at_, 2) == op) {
                tokens_.push_back({TokenKind::Operator, std::string(op), at_});
                at_ += 2;
                return;
            }
        }
        if (std::string_view("+-*/%~|.,:()[]{}=<>!").find(src_[at_]) == std::string_view::npos) {
            fail_at(at_, fmt::format("unexpected character '{}'", src_[at_]));
        }
        tokens_.push_back({TokenKind::Operator, std::string(1, src_[at_]), at_});
        ++at_;
    }

    std::string_view src_;
    std::size_t at_ = 0;
    std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) { return Lexer(source).run(); }

}  // namespace forge::llm::jinja
