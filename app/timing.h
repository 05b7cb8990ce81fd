// Timing for the benchmarks: a warm-up run, then every repetition's wall time. Rows of a
// benchmark record keep all of them (docs/BENCHMARKS.md); tables show the median, which
// ignores the odd run disturbed by another process better than a mean or a minimum would.
#pragma once

#include "app/bench_record.h"

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace forge::app {

// Time several bodies in turn: each once to warm up, then `reps` rounds of every body one
// after the other, so that a change of the machine's speed during the run falls on all of
// them alike. The wall times of each body's repetitions, in the bodies' order.
inline std::vector<std::vector<double>> time_reps_in_turn(const std::vector<std::function<void()>>& bodies, int reps) {
    for (const auto& body : bodies) body();
    std::vector<std::vector<double>> times(bodies.size());
    for (int i = 0; i < reps; ++i) {
        for (std::size_t b = 0; b < bodies.size(); ++b) {
            const auto start = std::chrono::steady_clock::now();
            bodies[b]();
            times[b].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
    }
    return times;
}

// Run `body` once to warm caches, pools and page tables, then `reps` more times; the wall time
// of each of those, in seconds.
template <typename Body>
std::vector<double> time_reps(Body&& body, int reps) {
    return time_reps_in_turn({std::function<void()>(std::forward<Body>(body))}, reps).front();
}

// A "higher is better" row of rates: `work` (FLOP, bytes, tokens; already scaled to `unit`)
// done in each repetition's seconds.
inline bench::Row rate_row(std::string name, std::string unit, double work, const std::vector<double>& seconds,
                           nlohmann::ordered_json extra = nlohmann::ordered_json::object()) {
    std::vector<double> rates;
    for (double s : seconds) rates.push_back(work / s);
    return bench::make_row(std::move(name), std::move(unit), bench::Direction::Higher, std::move(rates), std::move(extra));
}

// A "lower is better" row of milliseconds.
inline bench::Row time_row(std::string name, const std::vector<double>& seconds,
                           nlohmann::ordered_json extra = nlohmann::ordered_json::object()) {
    std::vector<double> ms;
    for (double s : seconds) ms.push_back(1e3 * s);
    return bench::make_row(std::move(name), "ms", bench::Direction::Lower, std::move(ms), std::move(extra));
}

}  // namespace forge::app
