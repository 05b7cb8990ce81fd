// Timing for the benchmarks: the median of several runs after a warm-up, which ignores the
// odd run disturbed by another process better than a mean or a minimum would.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace forge::app {

// Run `body` once to warm caches, pools and page tables, then `reps` more times; the median
// wall time in seconds.
template <typename Body>
double median_seconds(Body&& body, int reps) {
    body();
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(reps));
    for (int i = 0; i < reps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        body();
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace forge::app
