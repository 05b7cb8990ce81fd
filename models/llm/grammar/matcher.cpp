#include "models/llm/grammar/matcher.h"

#include <unordered_map>

namespace forge::llm::grammar {

Matcher::Matcher(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)) {
    const std::uint32_t root = grammar_->root();
    for (std::uint32_t start : grammar_->alternatives(root)) expand(start, -1, stacks_, complete_);
}

std::int32_t Matcher::push_frame(std::uint32_t position, std::int32_t parent) {
    frames_.push_back({position, parent});
    return static_cast<std::int32_t>(frames_.size() - 1);
}

bool Matcher::same_stack(std::int32_t a, std::int32_t b) const {
    while (a != b) {
        if (a < 0 || b < 0 || frames_[a].position != frames_[b].position) return false;
        a = frames_[a].parent;
        b = frames_[b].parent;
    }
    return true;
}

void Matcher::add_unique(std::int32_t stack, std::vector<std::int32_t>& out) const {
    for (std::int32_t s : out) {
        if (same_stack(s, stack)) return;
    }
    out.push_back(stack);
}

void Matcher::expand(std::uint32_t position, std::int32_t parent, std::vector<std::int32_t>& out, bool& complete) {
    const Symbol& symbol = grammar_->element(position);
    switch (symbol.kind) {
        case Symbol::Kind::Bytes:
            add_unique(push_frame(position, parent), out);
            return;
        case Symbol::Kind::End:
            // The alternative is done: continue where the parent rule left off.
            if (parent < 0) {
                complete = true;
                return;
            }
            if (grammar_->element(frames_[parent].position).kind == Symbol::Kind::Bytes) {
                add_unique(parent, out);  // the parent frame already is that stack
                return;
            }
            expand(frames_[parent].position, frames_[parent].parent, out, complete);
            return;
        case Symbol::Kind::Rule: {
            // A reference at the end of its alternative returns straight to our parent (tail
            // call), so a repetition `x*` = `star ::= x star | ""` keeps the stack flat.
            const bool tail = grammar_->element(position + 1).kind == Symbol::Kind::End;
            const std::int32_t return_frame = tail ? parent : push_frame(position + 1, parent);
            for (std::uint32_t start : grammar_->alternatives(symbol.index)) expand(start, return_frame, out, complete);
            return;
        }
    }
}

void Matcher::advance(std::span<const std::int32_t> from, std::uint8_t b, std::vector<std::int32_t>& to, bool& complete) {
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

void Matcher::compact() {
    std::vector<Frame> kept;
    std::unordered_map<std::int32_t, std::int32_t> moved;
    auto copy = [&](auto& self, std::int32_t frame) -> std::int32_t {
        if (frame < 0) return -1;
        if (auto it = moved.find(frame); it != moved.end()) return it->second;
        const std::int32_t parent = self(self, frames_[frame].parent);
        kept.push_back({frames_[frame].position, parent});
        const auto index = static_cast<std::int32_t>(kept.size() - 1);
        moved.emplace(frame, index);
        return index;
    };
    for (std::int32_t& stack : stacks_) stack = copy(copy, stack);
    frames_.swap(kept);
}

}  // namespace forge::llm::grammar
