// A context-free grammar over bytes, the form every constraint compiles to (JSON Schema,
// json_object, the regex subset, tool-call wrappers), in the shape of llama.cpp's GBNF grammars:
// rules are lists of alternatives, an alternative is a sequence of symbols, a symbol is a set
// of bytes or a reference to a rule. All alternatives sit in one flat array, each ending with
// an End symbol, so a parse position is one index (see matcher.h).
//
// Build one with GrammarBuilder; a built Grammar is immutable and shared by every request
// that uses it (std::shared_ptr<const Grammar>).
#pragma once

#include "models/llm/grammar/byte_set.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm::grammar {

struct Symbol {
    enum class Kind : std::uint8_t { Bytes, Rule, End };
    Kind kind = Kind::End;
    std::uint32_t index = 0;  // Bytes: a byte set; Rule: a rule id
    friend bool operator==(const Symbol&, const Symbol&) = default;
};

class Grammar {
public:
    // Where each alternative of `rule` starts in elements().
    std::span<const std::uint32_t> alternatives(std::uint32_t rule) const {
        return std::span(alternative_starts_).subspan(rule_first_[rule], rule_first_[rule + 1] - rule_first_[rule]);
    }
    const Symbol& element(std::uint32_t position) const { return elements_[position]; }
    const ByteSet& byte_set(std::uint32_t index) const { return byte_sets_[index]; }
    std::uint32_t root() const { return root_; }
    std::size_t rule_count() const { return rule_first_.size() - 1; }
    std::size_t element_count() const { return elements_.size(); }
    // What the grammar holds in memory (its arrays and names), for caches that keep grammars
    // by size (app/serve/grammar_cache.h). The token masks cached for it are not counted.
    std::size_t memory_bytes() const;
    // GBNF-like text of every rule, for errors, tests and `--grammar-dump`.
    std::string to_text() const;

private:
    friend class GrammarBuilder;
    std::string rule_name(std::uint32_t rule) const;

    std::vector<Symbol> elements_;
    std::vector<std::uint32_t> alternative_starts_;  // the alternatives of all rules, rule by rule
    std::vector<std::uint32_t> rule_first_{0};       // rule r's alternatives: [rule_first_[r], rule_first_[r + 1])
    std::vector<ByteSet> byte_sets_;
    std::vector<std::string> names_;                 // distinct rule names ("string", "repeat-opt")
    std::vector<std::uint32_t> rule_names_;          // per rule, its name in names_
    std::uint32_t root_ = 0;
};

class GrammarBuilder {
public:
    using Sequence = std::vector<Symbol>;

    // A rule that is defined later (for recursion: a JSON value contains values).
    std::uint32_t declare(std::string name);
    void define(std::uint32_t rule, std::vector<Sequence> alternatives);
    // A new rule; an identical rule built before is reused, so shared pieces (a JSON string,
    // whitespace) are one rule however often a schema uses them.
    Symbol rule(std::string name, std::vector<Sequence> alternatives);

    Symbol bytes(const ByteSet& set);
    Symbol byte(std::uint8_t b);
    Sequence literal(std::string_view text);
    // `item` at least `min` and at most `max` times (max < 0: unbounded; at most kMaxRepeat).
    // Long bounded runs become nested optional rules, each reused, so {0,1000} costs 1000
    // small rules. An item that can match nothing is repeated without its empty match
    // (`(a?){0,n}` is `a{0,n}`, `(a*)*` is `(a+)*`): the same strings, without one parse per
    // way of placing the empty matches, which made the matcher's state grow with n.
    Symbol repeat(std::string_view name, const Sequence& item, int min, int max);
    Symbol optional(std::string_view name, const Sequence& item) { return repeat(name, item, 0, 1); }
    // Whether `s` can match the empty string (as far as known: a rule declared but not yet
    // defined counts as not).
    bool nullable(const Symbol& s) const;

    // Checks that every declared rule was defined and that no rule can reach itself without
    // consuming a byte (left recursion), which would make the matcher loop; throws
    // GrammarLimitError (grammar_limits.h) naming the rule. Every rule defined counts against
    // kMaxElements as it is defined.
    Grammar build(std::uint32_t root) &&;

private:
    std::uint32_t new_rule(std::string name);
    void check_room(std::size_t elements) const;  // throws GrammarLimitError past kMaxElements
    void charge(std::size_t elements);            // counts elements against kMaxElements
    bool nullable(const Sequence& sequence) const;
    std::vector<Sequence> non_empty(const Sequence& sequence);
    std::optional<Symbol> non_empty(Symbol symbol);
    std::vector<bool> nullable_rules() const;
    void check_no_left_recursion() const;

    Grammar g_;
    std::vector<std::vector<Sequence>> bodies_;
    std::vector<bool> defined_;
    std::vector<bool> nullable_;  // as far as known while building: undefined rules count as not nullable
    std::size_t elements_ = 0;
    std::map<std::vector<std::uint64_t>, std::uint32_t> rule_ids_;  // body -> rule, for reuse
    std::map<ByteSet, std::uint32_t> byte_set_ids_;
    std::map<std::string, std::uint32_t, std::less<>> name_ids_;
    std::map<std::uint32_t, std::optional<Symbol>> non_empty_rules_;  // rule -> it without its empty match
};

}  // namespace forge::llm::grammar
