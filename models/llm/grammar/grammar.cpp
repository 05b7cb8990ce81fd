#include "models/llm/grammar/grammar.h"

#include "core/error.h"

#include <fmt/format.h>

#include <functional>

namespace forge::llm::grammar {

namespace {

constexpr std::uint64_t kAlternativeEnd = ~std::uint64_t{0};
constexpr std::uint32_t kSelf = ~std::uint32_t{0};  // "this rule" inside a body key

std::uint64_t symbol_key(const Symbol& s) { return (std::uint64_t{static_cast<std::uint8_t>(s.kind)} << 32) | s.index; }

std::vector<std::uint64_t> body_key(const std::vector<GrammarBuilder::Sequence>& alternatives) {
    std::vector<std::uint64_t> key;
    for (const auto& alternative : alternatives) {
        for (const Symbol& s : alternative) key.push_back(symbol_key(s));
        key.push_back(kAlternativeEnd);
    }
    return key;
}

std::string byte_text(const ByteSet& set) {
    auto printable = [](int b) {
        if (b == '\\' || b == ']' || b == '-' || b == '^' || b == '"') return fmt::format("\\{}", static_cast<char>(b));
        if (b >= 0x20 && b < 0x7f) return std::string(1, static_cast<char>(b));
        return fmt::format("\\x{:02X}", b);
    };
    int count = 0, single = -1;
    for (int b = 0; b < 256; ++b) {
        if (set.contains(static_cast<std::uint8_t>(b))) ++count, single = b;
    }
    if (count == 1) return fmt::format("\"{}\"", printable(single));
    std::string text = "[";
    for (int b = 0; b < 256;) {
        if (!set.contains(static_cast<std::uint8_t>(b))) {
            ++b;
            continue;
        }
        int last = b;
        while (last + 1 < 256 && set.contains(static_cast<std::uint8_t>(last + 1))) ++last;
        text += printable(b);
        if (last > b) {
            text += '-';
            text += printable(last);
        }
        b = last + 1;
    }
    return text + "]";
}

}  // namespace

std::string Grammar::to_text() const {
    std::string text;
    for (std::uint32_t r = 0; r < rule_count(); ++r) {
        text += names_[r] + " ::=";
        for (std::size_t a = 0; a < alternatives_[r].size(); ++a) {
            if (a > 0) text += " |";
            for (std::uint32_t p = alternatives_[r][a]; elements_[p].kind != Symbol::Kind::End; ++p) {
                const Symbol& s = elements_[p];
                text += " " + (s.kind == Symbol::Kind::Rule ? names_[s.index] : byte_text(byte_sets_[s.index]));
            }
            if (elements_[alternatives_[r][a]].kind == Symbol::Kind::End) text += " \"\"";
        }
        text += "\n";
    }
    return text;
}

std::uint32_t GrammarBuilder::new_rule(std::string name) {
    const auto id = static_cast<std::uint32_t>(bodies_.size());
    g_.names_.push_back(fmt::format("{}-{}", name.empty() ? "rule" : name, id));
    bodies_.emplace_back();
    defined_.push_back(false);
    return id;
}

std::uint32_t GrammarBuilder::declare(std::string name) { return new_rule(std::move(name)); }

void GrammarBuilder::define(std::uint32_t rule, std::vector<Sequence> alternatives) {
    check(rule < bodies_.size() && !defined_[rule], "grammar: rule {} defined twice", rule);
    check(!alternatives.empty(), "grammar: rule {} has no alternatives", g_.names_[rule]);
    bodies_[rule] = std::move(alternatives);
    defined_[rule] = true;
}

Symbol GrammarBuilder::rule(std::string name, std::vector<Sequence> alternatives) {
    auto key = body_key(alternatives);
    if (auto it = rule_ids_.find(key); it != rule_ids_.end()) return {Symbol::Kind::Rule, it->second};
    const std::uint32_t id = new_rule(std::move(name));
    define(id, std::move(alternatives));
    rule_ids_.emplace(std::move(key), id);
    return {Symbol::Kind::Rule, id};
}

Symbol GrammarBuilder::bytes(const ByteSet& set) {
    check(!set.empty(), "grammar: an empty byte set matches nothing");
    auto [it, inserted] = byte_set_ids_.emplace(set, static_cast<std::uint32_t>(g_.byte_sets_.size()));
    if (inserted) g_.byte_sets_.push_back(set);
    return {Symbol::Kind::Bytes, it->second};
}

Symbol GrammarBuilder::byte(std::uint8_t b) {
    ByteSet set;
    set.add(b);
    return bytes(set);
}

GrammarBuilder::Sequence GrammarBuilder::literal(std::string_view text) {
    Sequence sequence;
    for (char c : text) sequence.push_back(byte(static_cast<std::uint8_t>(c)));
    return sequence;
}

Symbol GrammarBuilder::repeat(std::string_view name, const Sequence& item, int min, int max) {
    check(min >= 0 && (max < 0 || max >= min), "grammar: bad repetition {{{},{}}}", min, max);
    constexpr int kMaxRepeat = 100000;
    check(min <= kMaxRepeat && max <= kMaxRepeat, "grammar: repetition bound over {} ({{{},{}}})", kMaxRepeat, min, max);
    Sequence body;
    for (int i = 0; i < min; ++i) body.insert(body.end(), item.begin(), item.end());
    if (max < 0) {
        // star ::= item star | ""   (a tail reference: the matcher's stack does not grow)
        std::vector<Sequence> star_body{item, {}};
        star_body[0].push_back({Symbol::Kind::Rule, kSelf});
        auto key = body_key(star_body);
        auto it = rule_ids_.find(key);
        std::uint32_t star = 0;
        if (it != rule_ids_.end()) {
            star = it->second;
        } else {
            star = declare(std::string(name) + "-star");
            star_body[0].back().index = star;
            define(star, std::move(star_body));
            rule_ids_.emplace(std::move(key), star);
        }
        body.push_back({Symbol::Kind::Rule, star});
    } else if (max > min) {
        // opt(k) ::= item opt(k-1) | ""   with opt(1) ::= item | ""
        Symbol tail = rule(std::string(name) + "-opt", {item, {}});
        for (int k = 2; k <= max - min; ++k) {
            Sequence more = item;
            more.push_back(tail);
            tail = rule(std::string(name) + "-opt", {std::move(more), {}});
        }
        body.push_back(tail);
    }
    return rule(std::string(name), {std::move(body)});
}

void GrammarBuilder::check_no_left_recursion() const {
    const std::size_t n = bodies_.size();
    // Which rules can match the empty string (a fixed point).
    std::vector<bool> nullable(n, false);
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t r = 0; r < n; ++r) {
            if (nullable[r]) continue;
            for (const Sequence& alternative : bodies_[r]) {
                bool all = true;
                for (const Symbol& s : alternative) all = all && s.kind == Symbol::Kind::Rule && nullable[s.index];
                if (all) {
                    nullable[r] = changed = true;
                    break;
                }
            }
        }
    }
    // A rule reaches the rules it may expand before consuming a byte; a cycle is left recursion.
    std::vector<int> state(n, 0);  // 0 unvisited, 1 on the path, 2 done
    std::function<void(std::size_t)> visit = [&](std::size_t r) {
        state[r] = 1;
        for (const Sequence& alternative : bodies_[r]) {
            for (const Symbol& s : alternative) {
                if (s.kind != Symbol::Kind::Rule) break;
                check(state[s.index] != 1, "grammar: rule {} can reach itself without consuming input (left recursion)",
                      g_.names_[s.index]);
                if (state[s.index] == 0) visit(s.index);
                if (!nullable[s.index]) break;
            }
        }
        state[r] = 2;
    };
    for (std::size_t r = 0; r < n; ++r) {
        if (state[r] == 0) visit(r);
    }
}

Grammar GrammarBuilder::build(std::uint32_t root) && {
    for (std::size_t r = 0; r < bodies_.size(); ++r) check(defined_[r], "grammar: rule {} was never defined", g_.names_[r]);
    check(root < bodies_.size(), "grammar: no root rule");
    check_no_left_recursion();
    g_.alternatives_.assign(bodies_.size(), {});
    for (std::size_t r = 0; r < bodies_.size(); ++r) {
        for (const Sequence& alternative : bodies_[r]) {
            g_.alternatives_[r].push_back(static_cast<std::uint32_t>(g_.elements_.size()));
            g_.elements_.insert(g_.elements_.end(), alternative.begin(), alternative.end());
            g_.elements_.push_back({Symbol::Kind::End, 0});
        }
    }
    g_.root_ = root;
    return std::move(g_);
}

}  // namespace forge::llm::grammar
