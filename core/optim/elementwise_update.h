// Running an element-wise update kernel over a parameter on the thread pool. Elements are
// independent, so the split changes nothing in the result.
#pragma once

#include "core/thread_pool.h"

#include <cstdint>
#include <span>

namespace forge::optim::detail {

inline constexpr std::int64_t kUpdateGrain = 1 << 15;

// body(offset, count) for chunks of [0, n).
template <typename Body>
void for_chunks(std::int64_t n, Body body) {
    ThreadPool::global().parallel_for(n, kUpdateGrain, [&](std::int64_t begin, std::int64_t end) {
        body(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
    });
}

}  // namespace forge::optim::detail
