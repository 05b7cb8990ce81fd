#include "models/llm/grammar/matcher.h"

#include "models/llm/grammar/grammar_limits.h"

#include <fmt/format.h>

namespace forge::llm::grammar {

Matcher::Matcher(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)) {
    begin_step();
    const std::uint32_t root = grammar_->root();
    for (std::uint32_t start : grammar_->alternatives(root)) expand(start, -1, stacks_, complete_);
}

std::int32_t Matcher::push_frame(std::uint32_t position, std::int32_t parent) {
    auto [it, inserted] = frame_ids_.try_emplace(frame_key(position, parent), static_cast<std::int32_t>(frames_.size()));
    if (inserted) frames_.push_back({position, parent});
    return it->second;
}

void Matcher::arena_release(std::size_t mark) {
    for (std::size_t f = mark; f < frames_.size(); ++f) frame_ids_.erase(frame_key(frames_[f].position, frames_[f].parent));
    frames_.resize(mark);
}

void Matcher::begin_step() {
    if (++step_ == 0) {  // the marks wrapped around: clear them once
        for (Frame& f : frames_) f.added = f.expanded = f.returned = 0;
        step_ = 1;
    }
    expansions_ = 0;
}

void Matcher::add_unique(std::int32_t stack, std::vector<std::int32_t>& out) {
    if (frames_[stack].added == step_) return;
    frames_[stack].added = step_;
    out.push_back(stack);
    if (out.size() > kMaxStacks)
        throw GrammarLimitError(fmt::format("the grammar is too ambiguous: over {} parses are open after one byte "
                                            "(a pattern with overlapping repetitions, such as a{{0,2000}}a{{0,2000}}; simplify it)",
                                            kMaxStacks));
}

void Matcher::expand(std::uint32_t position, std::int32_t parent, std::vector<std::int32_t>& out, bool& complete) {
    work_.clear();
    work_.push_back({position, parent});
    while (!work_.empty()) {
        const Work w = work_.back();
        work_.pop_back();
        if (++expansions_ > kMaxExpansionSteps)
            throw GrammarLimitError(fmt::format("the grammar is too ambiguous: one byte needs over {} expansion steps", kMaxExpansionSteps));
        const Symbol& symbol = grammar_->element(w.position);
        if (symbol.kind == Symbol::Kind::Bytes) {
            add_unique(push_frame(w.position, w.parent), out);
        } else if (symbol.kind == Symbol::Kind::End) {
            // The alternative is done: continue where the parent rule left off.
            if (w.parent < 0) {
                complete = true;
                continue;
            }
            Frame& back = frames_[w.parent];
            if (grammar_->element(back.position).kind == Symbol::Kind::Bytes) {
                add_unique(w.parent, out);  // the parent frame already is that stack
            } else if (back.returned != step_) {  // else another path returned here this step
                back.returned = step_;
                work_.push_back({back.position, back.parent});
            }
        } else {
            // A reference at the end of its alternative returns straight to our parent (tail
            // call), so a repetition `x*` = `star ::= x star | ""` keeps the stack flat.
            std::int32_t return_frame = w.parent;
            if (grammar_->element(w.position + 1).kind != Symbol::Kind::End) {
                return_frame = push_frame(w.position + 1, w.parent);
                if (frames_[return_frame].expanded == step_) continue;  // this rule, returning there: done already
                frames_[return_frame].expanded = step_;
            }
            const auto starts = grammar_->alternatives(symbol.index);
            for (auto start = starts.rbegin(); start != starts.rend(); ++start) work_.push_back({*start, return_frame});
        }
    }
}

void Matcher::advance(std::span<const std::int32_t> from, std::uint8_t b, std::vector<std::int32_t>& to, bool& complete) {
    begin_step();
    for (std::int32_t stack : from) {
        const Frame top = frames_[stack];
        if (!grammar_->byte_set(grammar_->element(top.position).index).contains(b)) continue;
        expand(top.position + 1, top.parent, to, complete);
    }
}

std::size_t Matcher::top_positions(std::int32_t stack, std::span<std::uint32_t> out) const {
    std::size_t n = 0;
    for (; stack >= 0 && n < out.size(); stack = frames_[stack].parent) out[n++] = frames_[stack].position;
    return n;
}

void Matcher::append_positions(std::int32_t stack, std::vector<std::uint32_t>& out) const {
    for (; stack >= 0; stack = frames_[stack].parent) out.push_back(frames_[stack].position);
}

std::int32_t Matcher::push_stack(std::span<const std::uint32_t> positions) {
    std::int32_t parent = -1;
    for (std::size_t k = positions.size(); k-- > 0;) parent = push_frame(positions[k], parent);
    return parent;
}

bool Matcher::run(std::span<const std::int32_t> from, std::string_view bytes, bool& complete) {
    std::vector<std::int32_t>& current = scratch_a_;
    std::vector<std::int32_t>& next = scratch_b_;
    current.assign(from.begin(), from.end());
    for (char c : bytes) {
        next.clear();
        complete = false;
        advance(current, static_cast<std::uint8_t>(c), next, complete);
        current.swap(next);
        if (current.empty() && !complete) return false;
    }
    // Past the root's end only the end of the text may follow (the loop fails a further byte).
    return true;
}

bool Matcher::stack_allows(std::int32_t stack, std::string_view bytes) {
    const std::size_t mark = arena_mark();
    bool complete = false;
    const bool ok = run(std::span(&stack, 1), bytes, complete);
    arena_release(mark);
    return ok;
}

bool Matcher::allows(std::string_view bytes) {
    const std::size_t mark = arena_mark();
    bool complete = complete_;
    const bool ok = run(stacks_, bytes, complete);
    arena_release(mark);
    return ok;
}

bool Matcher::accept(std::string_view bytes) {
    const std::size_t mark = arena_mark();
    bool complete = complete_;
    if (!run(stacks_, bytes, complete)) {
        arena_release(mark);
        return false;
    }
    stacks_.assign(scratch_a_.begin(), scratch_a_.end());
    complete_ = complete;
    compact();
    return true;
}

void check_first_state(const std::shared_ptr<const Grammar>& grammar) { const Matcher first(grammar); }

void Matcher::compact() {
    std::vector<Frame> kept;
    std::unordered_map<std::uint64_t, std::int32_t> kept_ids;
    std::vector<std::int32_t> moved(frames_.size(), -1);
    std::vector<std::int32_t> chain;
    for (std::int32_t& stack : stacks_) {
        // The frames of this stack not copied yet, top first; then copied bottom first.
        chain.clear();
        for (std::int32_t f = stack; f >= 0 && moved[f] < 0; f = frames_[f].parent) chain.push_back(f);
        for (std::size_t k = chain.size(); k-- > 0;) {
            const Frame& old = frames_[chain[k]];
            const std::int32_t parent = old.parent < 0 ? -1 : moved[old.parent];
            moved[chain[k]] = static_cast<std::int32_t>(kept.size());
            kept_ids.emplace(frame_key(old.position, parent), static_cast<std::int32_t>(kept.size()));
            kept.push_back({old.position, parent});
        }
        stack = moved[stack];
    }
    frames_.swap(kept);
    frame_ids_.swap(kept_ids);
}

}  // namespace forge::llm::grammar
