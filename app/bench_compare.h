// `forge bench compare`: two records matched row by row, each with a speedup and a verdict
// decided from the repetitions' spread (the rule is in docs/BENCHMARKS.md), and the warnings
// that make a comparison suspect (different machines or builds, a loaded machine, a row above
// its machine limit).
#pragma once

#include "app/bench_record.h"

#include <string>
#include <vector>

namespace forge::app::bench {

enum class Verdict {
    Faster,   // better, outside the noise band, repetitions apart
    Slower,   // worse, outside the noise band, repetitions apart
    Same,     // within the noise and within the threshold
    Noise,    // the medians moved by more than the threshold, but the spread cannot tell
    Missing,  // only in BASE
    New,      // only in NEW
};

std::string_view verdict_name(Verdict verdict);

struct RowComparison {
    std::string name, unit;
    Verdict verdict = Verdict::Same;
    const Row* base = nullptr;  // null for New
    const Row* next = nullptr;  // null for Missing
    double speedup = 1;         // above 1: NEW is better, whatever the row's direction
    double band = 0;            // the noise band, on |ln speedup|
    bool regression = false;    // Slower by more than the threshold: fails the comparison
};

struct Comparison {
    std::vector<RowComparison> rows;
    std::vector<std::string> warnings;
    double threshold = 0.05;

    bool regressed() const;
};

// Rows named "machine/..." measure the machine's limits, not forge: never a regression.
constexpr std::string_view kMachinePrefix = "machine/";
bool is_machine_row(std::string_view name);

// The noise band of docs/BENCHMARKS.md: 2 sqrt(cv_base^2 + cv_new^2) + 0.005, on |ln speedup|.
double noise_band(const Row& base, const Row& next);

// One row of BASE against the same row of NEW.
RowComparison compare_rows(const Row& base, const Row& next, double threshold);

// Every row: BASE's order, then the rows only NEW has. `threshold` is a fraction (0.05 = 5%).
Comparison compare(const Record& base, const Record& next, double threshold);

// Rows whose median exceeds the machine limit they name (the `limit` field) by more than the
// noise of both: a memory-bound row faster than memory measures a cache or a wrong probe.
std::vector<std::string> limit_warnings(const Record& record, std::string_view label);

}  // namespace forge::app::bench
