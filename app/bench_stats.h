// The statistics of a benchmark row: the summary of its repetitions (median, min, max,
// coefficient of variation) and whether it is too unsteady to judge a small change.
// docs/BENCHMARKS.md defines each of these; this file is their one implementation.
#pragma once

#include <span>

namespace forge::app::bench {

struct Summary {
    double median = 0, min = 0, max = 0;
    double cv = 0;  // sample standard deviation / mean; 0 for a single repetition
};

// Throws forge::Error on an empty span.
Summary summarize(std::span<const double> reps);

// Above this coefficient of variation, or with fewer than kMinSteadyReps repetitions, a row is "noisy".
constexpr double kNoisyCv = 0.05;
constexpr int kMinSteadyReps = 3;

bool is_noisy(const Summary& summary, std::size_t rep_count);

}  // namespace forge::app::bench
