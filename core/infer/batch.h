// What one forward pass of the inference front-end runs: rows of {token, position, slot,
// wants logits}. Rows of different sequences (slots) mix freely; a slot's rows come in order
// of position, continuing where the slot's KV cache ends. Each row's result depends only on its
// own sequence, never on its neighbours in the batch (see core/infer/linear.h).
#pragma once

#include "core/error.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::infer {

struct BatchRow {
    std::int32_t token;
    std::int64_t position;  // in its sequence, from 0
    std::int64_t slot;      // KV cache slot of its sequence
    bool wants_logits;
};

// A reusable list of rows with a fixed capacity: adding never allocates.
class Batch {
public:
    explicit Batch(std::int64_t capacity) : capacity_(capacity) { rows_.reserve(static_cast<std::size_t>(capacity)); }

    void clear() { rows_.clear(); }
    void add(const BatchRow& row) {
        check(size() < capacity_, "batch: more than {} rows", capacity_);
        rows_.push_back(row);
    }
    std::int64_t size() const { return static_cast<std::int64_t>(rows_.size()); }
    std::int64_t capacity() const { return capacity_; }
    bool empty() const { return rows_.empty(); }
    std::span<const BatchRow> rows() const { return rows_; }

private:
    std::int64_t capacity_;
    std::vector<BatchRow> rows_;
};

}  // namespace forge::infer
