// The benches behind `forge bench run`: each returns rows for a benchmark record
// (docs/BENCHMARKS.md). `forge bench ops|quant|train|llm` and `forge nam bench` run the same
// functions and print their rows as tables, so there is one timing code per bench.
#pragma once

#include "app/bench_record.h"

#include <string>
#include <vector>

namespace forge::app {

// The machine's own limits, rows of every record.
inline constexpr const char* kPeakFlopsRow = "machine/fma peak f32";
inline constexpr const char* kReadBandwidthRow = "machine/read bandwidth";
inline constexpr const char* kCopyBandwidthRow = "machine/memcpy bandwidth";

// How much each bench runs: quick (a few shapes, for every change) or full (every shape).
struct BenchPlan {
    bool full = false;
    int reps = 5;  // measured repetitions after the warm-up
};

std::vector<bench::Row> machine_rows(const BenchPlan& plan);
std::vector<bench::Row> ops_rows(const BenchPlan& plan);
std::vector<bench::Row> quant_rows(const BenchPlan& plan);
std::vector<bench::Row> train_rows(const BenchPlan& plan);
std::vector<bench::Row> nam_rows(const BenchPlan& plan, const std::string& model);  // "default": the bundled model
std::vector<bench::Row> llm_rows(const BenchPlan& plan, const std::string& model);

// Fill in each row's limit fraction ("limit": {"row", "fraction"}) from the limit rows of `rows`.
void attach_limit_fractions(std::vector<bench::Row>& rows);

}  // namespace forge::app
