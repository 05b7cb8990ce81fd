#include "models/llm/grammar/grammar.h"

#include "core/error.h"
#include "models/llm/grammar/grammar_limits.h"

#include <fmt/format.h>

#include <algorithm>

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

std::string Grammar::rule_name(std::uint32_t rule) const { return fmt::format("{}-{}", names_[rule_names_[rule]], rule); }

std::size_t Grammar::memory_bytes() const {
    std::size_t bytes = sizeof(Grammar) + elements_.capacity() * sizeof(Symbol) +
                        (alternative_starts_.capacity() + rule_first_.capacity() + rule_names_.capacity()) * sizeof(std::uint32_t) +
                        byte_sets_.capacity() * sizeof(ByteSet);
    for (const std::string& name : names_) bytes += sizeof(std::string) + name.capacity();
    return bytes;
}

std::string Grammar::to_text() const {
    std::string text;
    for (std::uint32_t r = 0; r < rule_count(); ++r) {
        text += rule_name(r);
        text += " ::=";
        const auto starts = alternatives(r);
        for (std::size_t a = 0; a < starts.size(); ++a) {
            if (a > 0) text += " |";
            for (std::uint32_t p = starts[a]; elements_[p].kind != Symbol::Kind::End; ++p) {
                const Symbol& s = elements_[p];
                text += ' ';
                text += s.kind == Symbol::Kind::Rule ? rule_name(s.index) : byte_text(byte_sets_[s.index]);
            }
            if (elements_[starts[a]].kind == Symbol::Kind::End) text += " \"\"";
        }
        text += "\n";
    }
    return text;
}

std::uint32_t GrammarBuilder::new_rule(std::string name) {
    const auto id = static_cast<std::uint32_t>(bodies_.size());
    if (name.empty()) name = "rule";
    auto [it, inserted] = name_ids_.try_emplace(name, static_cast<std::uint32_t>(g_.names_.size()));
    if (inserted) g_.names_.push_back(std::move(name));
    g_.rule_names_.push_back(it->second);
    bodies_.emplace_back();
    defined_.push_back(false);
    nullable_.push_back(false);
    return id;
}

void GrammarBuilder::check_room(std::size_t elements) const {
    if (elements > kMaxElements - elements_)
        throw GrammarLimitError(fmt::format("the grammar would need more than {} symbols (make the schema or pattern smaller: "
                                            "fewer or shorter repetitions, enum values, properties)",
                                            kMaxElements));
}

void GrammarBuilder::charge(std::size_t elements) {
    check_room(elements);
    elements_ += elements;
}

std::uint32_t GrammarBuilder::declare(std::string name) { return new_rule(std::move(name)); }

void GrammarBuilder::define(std::uint32_t rule, std::vector<Sequence> alternatives) {
    check(rule < bodies_.size() && !defined_[rule], "grammar: rule {} defined twice", rule);
    check(!alternatives.empty(), "grammar: rule {} has no alternatives", g_.rule_name(rule));
    std::size_t size = 0;
    for (const Sequence& alternative : alternatives) size += alternative.size() + 1;  // + its End
    charge(size);
    nullable_[rule] = std::any_of(alternatives.begin(), alternatives.end(), [&](const Sequence& a) { return nullable(a); });
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
    check_room(text.size());  // refused before it is built
    Sequence sequence;
    for (char c : text) sequence.push_back(byte(static_cast<std::uint8_t>(c)));
    return sequence;
}

bool GrammarBuilder::nullable(const Symbol& s) const { return s.kind == Symbol::Kind::Rule && nullable_[s.index]; }

bool GrammarBuilder::nullable(const Sequence& sequence) const {
    return std::all_of(sequence.begin(), sequence.end(), [&](const Symbol& s) { return nullable(s); });
}

// The non-empty sentences of `sequence`, as alternatives: symbol i without its empty match,
// after symbols 0..i-1 that all matched nothing, then the rest as they are. Empty when the
// sequence matches only the empty string.
std::vector<GrammarBuilder::Sequence> GrammarBuilder::non_empty(const Sequence& sequence) {
    std::vector<Sequence> alternatives;
    for (std::size_t i = 0; i < sequence.size(); ++i) {
        if (const std::optional<Symbol> first = non_empty(sequence[i])) {
            check_room(sequence.size() - i);
            Sequence alternative{*first};
            alternative.insert(alternative.end(), sequence.begin() + static_cast<std::ptrdiff_t>(i) + 1, sequence.end());
            alternatives.push_back(std::move(alternative));
        }
        if (!nullable(sequence[i])) break;
    }
    return alternatives;
}

std::optional<Symbol> GrammarBuilder::non_empty(Symbol symbol) {
    if (!nullable(symbol)) return symbol;
    const std::uint32_t rule = symbol.index;
    if (auto it = non_empty_rules_.find(rule); it != non_empty_rules_.end()) return it->second;
    // Provisional, for a rule that reaches itself: the rule as it is (the left-recursion check
    // of build() refuses what that leaves looping).
    non_empty_rules_[rule] = symbol;
    std::vector<Sequence> alternatives;
    const std::vector<Sequence> body = bodies_[rule];  // a copy: rule() below grows bodies_
    for (const Sequence& alternative : body) {
        for (Sequence& a : non_empty(alternative)) alternatives.push_back(std::move(a));
    }
    std::optional<Symbol> result;
    if (!alternatives.empty()) result = this->rule(g_.names_[g_.rule_names_[rule]] + "-nonempty", std::move(alternatives));
    non_empty_rules_[rule] = result;
    return result;
}

Symbol GrammarBuilder::repeat(std::string_view name, const Sequence& item, int min, int max) {
    check(min >= 0 && (max < 0 || max >= min), "grammar: bad repetition {{{},{}}}", min, max);
    if (min > kMaxRepeat || max > kMaxRepeat)
        throw GrammarLimitError(fmt::format("repetition count {} is over the supported {}", std::max(min, max), kMaxRepeat));
    if (nullable(item)) {
        // x{m,n} = x'{0,n} where x' is x without the empty match (m copies of x may all be empty).
        std::vector<Sequence> alternatives = non_empty(item);
        if (alternatives.empty()) return rule(std::string(name), {{}});  // x matches only the empty string
        const Symbol once = alternatives.size() == 1 && alternatives[0].size() == 1 ? alternatives[0][0]
                                                                                     : rule(std::string(name) + "-item", std::move(alternatives));
        // Only a rule that reaches itself before consuming (left recursion) stays empty-capable.
        if (nullable(once)) throw GrammarLimitError("grammar: a repeated item can reach itself without consuming input (left recursion)");
        return repeat(name, {once}, 0, max);
    }
    check_room(item.size() * static_cast<std::size_t>(min));
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

// Which rules can match the empty string, now that every rule is defined: a work list over
// the alternatives, each waiting for its last possibly-empty symbol (linear in the grammar).
std::vector<bool> GrammarBuilder::nullable_rules() const {
    const std::size_t n = bodies_.size();
    std::vector<bool> nullable(n, false);
    std::vector<std::uint32_t> waiting, owner, queue;   // per alternative: symbols not yet known empty; its rule
    std::vector<std::vector<std::uint32_t>> users(n);  // rule -> alternatives that wait on it
    for (std::uint32_t r = 0; r < n; ++r) {
        for (const Sequence& alternative : bodies_[r]) {
            const auto a = static_cast<std::uint32_t>(waiting.size());
            const bool has_bytes = std::any_of(alternative.begin(), alternative.end(), [](const Symbol& s) { return s.kind != Symbol::Kind::Rule; });
            waiting.push_back(has_bytes ? 0 : static_cast<std::uint32_t>(alternative.size()));
            owner.push_back(r);
            if (has_bytes) continue;
            for (const Symbol& s : alternative) users[s.index].push_back(a);
            if (alternative.empty() && !nullable[r]) nullable[r] = true, queue.push_back(r);
        }
    }
    while (!queue.empty()) {
        const std::uint32_t r = queue.back();
        queue.pop_back();
        for (std::uint32_t a : users[r]) {
            if (--waiting[a] == 0 && !nullable[owner[a]]) nullable[owner[a]] = true, queue.push_back(owner[a]);
        }
    }
    return nullable;
}

void GrammarBuilder::check_no_left_recursion() const {
    const std::size_t n = bodies_.size();
    const std::vector<bool> nullable = nullable_rules();
    // rule -> the rules it may expand before consuming a byte; a cycle among them is left recursion.
    std::vector<std::vector<std::uint32_t>> first(n);
    for (std::size_t r = 0; r < n; ++r) {
        for (const Sequence& alternative : bodies_[r]) {
            for (const Symbol& s : alternative) {
                if (s.kind != Symbol::Kind::Rule) break;
                first[r].push_back(s.index);
                if (!nullable[s.index]) break;
            }
        }
    }
    // Depth-first with an explicit stack: chains of rules can be as long as the grammar.
    std::vector<std::uint8_t> state(n, 0);  // 0 unvisited, 1 on the path, 2 done
    std::vector<std::pair<std::uint32_t, std::size_t>> path;  // rule, next edge to follow
    for (std::uint32_t start = 0; start < n; ++start) {
        if (state[start] != 0) continue;
        state[start] = 1;
        path.emplace_back(start, 0);
        while (!path.empty()) {
            auto& [r, next] = path.back();
            if (next == first[r].size()) {
                state[r] = 2;
                path.pop_back();
                continue;
            }
            const std::uint32_t s = first[r][next++];
            if (state[s] == 1)
                throw GrammarLimitError(fmt::format("grammar: rule {} can reach itself without consuming input (left recursion)", g_.rule_name(s)));
            if (state[s] == 0) {
                state[s] = 1;
                path.emplace_back(s, 0);
            }
        }
    }
}

Grammar GrammarBuilder::build(std::uint32_t root) && {
    for (std::uint32_t r = 0; r < bodies_.size(); ++r) check(defined_[r], "grammar: rule {} was never defined", g_.rule_name(r));
    check(root < bodies_.size(), "grammar: no root rule");
    check_no_left_recursion();
    g_.elements_.reserve(elements_);
    for (std::size_t r = 0; r < bodies_.size(); ++r) {
        for (const Sequence& alternative : bodies_[r]) {
            g_.alternative_starts_.push_back(static_cast<std::uint32_t>(g_.elements_.size()));
            g_.elements_.insert(g_.elements_.end(), alternative.begin(), alternative.end());
            g_.elements_.push_back({Symbol::Kind::End, 0});
        }
        g_.rule_first_.push_back(static_cast<std::uint32_t>(g_.alternative_starts_.size()));
    }
    g_.root_ = root;
    return std::move(g_);
}

}  // namespace forge::llm::grammar
