// The parse state of a Grammar: which continuations are still possible after the bytes so far.
//
// Like llama.cpp's grammar engine it keeps a set of stacks, each a path of rule positions whose
// top is the next byte set to match (a nondeterministic pushdown automaton, so ambiguous
// grammars need no special care). Unlike it, a stack is a linked list of frames in one arena
// (a frame is a position plus its parent frame), so advancing a stack by one byte allocates
// one or two frames instead of copying the stack. The token mask (grammar_constraint.h) leans
// on that: it advances the state along every path of the vocabulary trie and throws the
// frames of the walk away afterwards (arena_mark / arena_release).
//
// Frames are interned (one frame per (position, parent)), so two stacks are equal exactly when
// their top frames are: a step dedupes its stacks in O(1) each, and an ambiguous grammar's
// paths that meet share one expansion. Expansion uses an explicit work list, not recursion,
// and a step that would pass kMaxStacks stacks or kMaxExpansionSteps expansions
// (grammar_limits.h) throws GrammarLimitError instead of growing without bound.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace forge::llm::grammar {

class Matcher {
public:
    explicit Matcher(std::shared_ptr<const Grammar> grammar);

    // Advances over `bytes`; false (state unchanged) when the grammar cannot match them.
    bool accept(std::string_view bytes);
    // The bytes so far are a whole sentence of the grammar (the generation may end here).
    bool complete() const { return complete_; }
    // Some continuation needs more bytes (false: only the end may follow).
    bool can_continue() const { return !stacks_.empty(); }
    // Whether `bytes` could follow, without changing the state.
    bool allows(std::string_view bytes);

    const Grammar& grammar() const { return *grammar_; }

    // ---- the stepping interface the token mask uses ----
    std::span<const std::int32_t> stacks() const { return stacks_; }
    // The stacks of `from` that can take byte `b`, advanced (appended to `to`); `complete` is
    // set when a stack finished the root rule.
    void advance(std::span<const std::int32_t> from, std::uint8_t b, std::vector<std::int32_t>& to, bool& complete);
    // The positions of `stack`'s top frames, top first (at most out.size()); returns how many.
    std::size_t top_positions(std::int32_t stack, std::span<std::uint32_t> out) const;
    // Appends all of `stack`'s positions, top first.
    void append_positions(std::int32_t stack, std::vector<std::uint32_t>& out) const;
    // A stack of `positions` (top first) with nothing below; its frames live until arena_release.
    std::int32_t push_stack(std::span<const std::uint32_t> positions);
    // Whether `bytes` can follow the single stack `stack` (state unchanged).
    bool stack_allows(std::int32_t stack, std::string_view bytes);
    std::size_t arena_mark() const { return frames_.size(); }
    void arena_release(std::size_t mark);

private:
    struct Frame {
        std::uint32_t position;  // a Bytes symbol (a stack top) or a return position
        std::int32_t parent;     // -1: the bottom
        // The last step that added this frame as a stack, expanded the rule that returns into
        // it, and returned into it: each happens once per step (marks, not sets, so starting
        // a step costs nothing).
        std::uint32_t added = 0, expanded = 0, returned = 0;
    };
    struct Work {
        std::uint32_t position;
        std::int32_t parent;
    };

    // The frame (position, parent), made once: equal stacks are the same frame index.
    std::int32_t push_frame(std::uint32_t position, std::int32_t parent);
    static std::uint64_t frame_key(std::uint32_t position, std::int32_t parent) {
        return (std::uint64_t{position} << 32) | static_cast<std::uint32_t>(parent + 1);
    }
    void begin_step();
    // From `position` (with return frame `parent`) to every stack whose top is a byte set.
    void expand(std::uint32_t position, std::int32_t parent, std::vector<std::int32_t>& out, bool& complete);
    void add_unique(std::int32_t stack, std::vector<std::int32_t>& out);
    // Advances `from` over `bytes` into scratch_a_; false when some byte cannot be taken.
    bool run(std::span<const std::int32_t> from, std::string_view bytes, bool& complete);
    void compact();  // drop frames no live stack uses

    std::shared_ptr<const Grammar> grammar_;
    std::vector<Frame> frames_;
    std::unordered_map<std::uint64_t, std::int32_t> frame_ids_;  // frame_key -> frame
    std::vector<std::int32_t> stacks_;
    bool complete_ = false;
    std::uint32_t step_ = 0;        // the current step, for Frame::added / returned
    std::size_t expansions_ = 0;    // expansion steps in the current step
    std::vector<Work> work_;        // expand's work list
    std::vector<std::int32_t> scratch_a_, scratch_b_;
};

// Opens the first parse state of `grammar`: a grammar past the matcher's bounds already there
// (an anyOf of thousands of integer ranges) throws GrammarLimitError when it is compiled, where the
// error can name the field, instead of when a request uses it.
void check_first_state(const std::shared_ptr<const Grammar>& grammar);

}  // namespace forge::llm::grammar
