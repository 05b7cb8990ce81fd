// Benchmark records and their comparison (docs/BENCHMARKS.md), on synthetic records: the
// statistics of a row, the verdicts (a tight 20% slowdown is flagged, a 20% move inside a
// wide spread is noise, a missing row is reported, a record against itself is "same" on every
// row), the checks of the JSON schema, and the warnings about machines, builds and limits.
#include "app/bench_compare.h"
#include "app/bench_record.h"
#include "app/bench_report.h"
#include "core/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace forge::app::bench {
namespace {

using ::testing::HasSubstr;

nlohmann::ordered_json machine() {
    return {{"cpu", "Test CPU"}, {"instruction_set", "avx2"}, {"cores", 2},          {"threads", 2},
            {"memory_bytes", 8e9},   {"llc_bytes", 32e6},        {"kernel", "Linux"}, {"load_before", {0.1, 0.1, 0.1}},
            {"load_after", {0.2, 0.1, 0.1}}};
}

nlohmann::ordered_json build(const std::string& commit = "abc") {
    return {{"version", "0.1.0"}, {"commit", commit},      {"dirty", false},       {"backend", "simd"},
            {"native", true},     {"compiler", "gcc 12"},  {"buildtype", "release"}, {"flags", "-O3"}};
}

Record record_of(std::vector<Row> rows, const std::string& commit = "abc") {
    Record r;
    r.header = {{"created", "2026-12-03T10:00:00Z"}, {"suite", "test"}};
    r.machine = machine();
    r.build = build(commit);
    r.rows = std::move(rows);
    return r;
}

// Five reps around `centre`, spread by ±`spread` (a fraction).
std::vector<double> around(double centre, double spread) {
    return {centre * (1 - spread), centre * (1 - spread / 2), centre, centre * (1 + spread / 2), centre * (1 + spread)};
}

Row rate(const std::string& name, std::vector<double> reps) { return make_row(name, "GB/s", Direction::Higher, std::move(reps)); }

TEST(BenchStats, MedianMinMaxAndCv) {
    const std::vector<double> odd = {3, 1, 2};
    const Summary s = summarize(odd);
    EXPECT_DOUBLE_EQ(s.median, 2);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.max, 3);
    EXPECT_DOUBLE_EQ(s.cv, 0.5);  // sample sd 1 over mean 2
    const std::vector<double> even = {4, 1, 3, 2};
    EXPECT_DOUBLE_EQ(summarize(even).median, 2.5);
    EXPECT_NEAR(summarize(even).cv, 1.2909944487358056 / 2.5, 1e-15);
    const std::vector<double> one = {7};
    EXPECT_DOUBLE_EQ(summarize(one).cv, 0);
    EXPECT_THROW(summarize(std::span<const double>()), Error);
}

TEST(BenchStats, NoisyWhenSpreadOrFewReps) {
    EXPECT_FALSE(rate("a", around(10, 0.01)).noisy);
    EXPECT_TRUE(rate("a", around(10, 0.2)).noisy);  // cv about 0.16
    EXPECT_TRUE(rate("a", {10, 10}).noisy);         // two reps cannot show a spread
}

TEST(BenchCompare, TightTwentyPercentSlowdownIsARegression) {
    const Record base = record_of({rate("ops/exp", around(10, 0.01))});
    const Record next = record_of({rate("ops/exp", around(8, 0.01))});
    const Comparison c = compare(base, next, 0.05);
    ASSERT_EQ(c.rows.size(), 1u);
    EXPECT_EQ(c.rows[0].verdict, Verdict::Slower);
    EXPECT_NEAR(c.rows[0].speedup, 0.8, 1e-12);
    EXPECT_TRUE(c.rows[0].regression);
    EXPECT_TRUE(c.regressed());
}

TEST(BenchCompare, TwentyPercentInsideAWideSpreadIsNoise) {
    const Record base = record_of({rate("ops/exp", around(10, 0.4))});
    const Record next = record_of({rate("ops/exp", around(8, 0.4))});
    const Comparison c = compare(base, next, 0.05);
    EXPECT_EQ(c.rows[0].verdict, Verdict::Noise);
    EXPECT_FALSE(c.regressed());
}

TEST(BenchCompare, SmallTightSlowdownIsSlowerButBelowTheThreshold) {
    const Record base = record_of({rate("ops/exp", {10, 10.01, 10.02})});
    const Record next = record_of({rate("ops/exp", {9.7, 9.71, 9.72})});
    const Comparison c = compare(base, next, 0.05);
    EXPECT_EQ(c.rows[0].verdict, Verdict::Slower);
    EXPECT_FALSE(c.regressed());  // 3% < 5%
    EXPECT_TRUE(compare(base, next, 0.02).regressed());
}

TEST(BenchCompare, OverlappingRepsAreNeverAVerdict) {
    // The medians differ by 20% with a tiny cv elsewhere, but one rep of NEW reaches BASE's range.
    const Record base = record_of({rate("r", {10, 10, 10, 10, 10})});
    const Record next = record_of({rate("r", {8, 8, 8, 8, 10})});
    EXPECT_NE(compare(base, next, 0.05).rows[0].verdict, Verdict::Slower);
}

TEST(BenchCompare, LowerIsBetterRowsSlowDownWhenTheyGrow) {
    const Record base = record_of({make_row("train/step", "ms", Direction::Lower, around(100, 0.01))});
    const Record next = record_of({make_row("train/step", "ms", Direction::Lower, around(125, 0.01))});
    const Comparison c = compare(base, next, 0.05);
    EXPECT_EQ(c.rows[0].verdict, Verdict::Slower);
    EXPECT_NEAR(c.rows[0].speedup, 0.8, 1e-12);
    EXPECT_EQ(compare(next, base, 0.05).rows[0].verdict, Verdict::Faster);
}

TEST(BenchCompare, MissingAndNewRowsAreReported) {
    const Record base = record_of({rate("a", around(10, 0.01)), rate("gone", around(5, 0.01))});
    const Record next = record_of({rate("a", around(10, 0.01)), rate("added", around(5, 0.01))});
    const Comparison c = compare(base, next, 0.05);
    ASSERT_EQ(c.rows.size(), 3u);
    EXPECT_EQ(c.rows[0].verdict, Verdict::Same);
    EXPECT_EQ(c.rows[1].name, "gone");
    EXPECT_EQ(c.rows[1].verdict, Verdict::Missing);
    EXPECT_EQ(c.rows[2].name, "added");
    EXPECT_EQ(c.rows[2].verdict, Verdict::New);
    EXPECT_FALSE(c.regressed());
}

TEST(BenchCompare, ARecordAgainstItselfIsSameOnEveryRow) {
    const Record r = record_of({rate("tight", around(10, 0.001)), rate("wide", around(3, 0.5)),
                                make_row("one rep", "ms", Direction::Lower, {4}),
                                make_row("time", "ms", Direction::Lower, around(2, 0.05))});
    const Comparison c = compare(r, r, 0.05);
    for (const auto& row : c.rows) EXPECT_EQ(row.verdict, Verdict::Same) << row.name;
    EXPECT_TRUE(c.warnings.empty());
}

TEST(BenchCompare, WarnsWhenMachinesOrBuildsDiffer) {
    Record base = record_of({rate("a", around(10, 0.01))}, "abc");
    Record next = record_of({rate("a", around(10, 0.01))}, "def");
    EXPECT_TRUE(compare(base, next, 0.05).warnings.empty());  // another commit is the point of a comparison
    next.machine["cpu"] = "Other CPU";
    next.build["backend"] = "scalar";
    next.build["dirty"] = true;
    next.machine["load_before"] = {1.5, 1.0, 1.0};
    const auto warnings = compare(base, next, 0.05).warnings;
    ASSERT_EQ(warnings.size(), 4u);
    EXPECT_THAT(warnings[0], HasSubstr("machine.cpu differs"));
    EXPECT_THAT(warnings[1], HasSubstr("build.backend differs"));
    EXPECT_THAT(warnings[2], HasSubstr("dirty"));
    EXPECT_THAT(warnings[3], HasSubstr("load_before is 1.50"));
}

TEST(BenchCompare, MachineRowsWarnInsteadOfFailing) {
    const Record base = record_of({rate("machine/fma peak f32", around(100, 0.01))});
    const Record next = record_of({rate("machine/fma peak f32", around(70, 0.01))});
    const Comparison c = compare(base, next, 0.05);
    EXPECT_EQ(c.rows[0].verdict, Verdict::Slower);
    EXPECT_FALSE(c.regressed());
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_THAT(c.warnings[0], HasSubstr("the machine itself measured slower (machine/fma peak f32 -30.0%)"));
}

TEST(BenchCompare, WarnsWhenARowBeatsItsMachineLimit) {
    Row bandwidth = rate("machine/read bandwidth", around(10, 0.01));
    Row exp = rate("ops/exp", around(12, 0.01));
    exp.extra["limit"] = {{"row", "machine/read bandwidth"}};
    Row copy = rate("ops/copy", around(9, 0.01));
    copy.extra["limit"] = {{"row", "machine/read bandwidth"}};
    const auto warnings = limit_warnings(record_of({bandwidth, exp, copy}), "new");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_THAT(warnings[0], HasSubstr("ops/exp runs at 120% of machine/read bandwidth"));
}

TEST(BenchRecord, JsonRoundTripKeepsEveryField) {
    Row row = rate("ops/exp", {1.5, 2.25, 3});
    row.extra["params"] = {{"shape", "4096"}};
    const Record r = record_of({row, make_row("t", "ms", Direction::Lower, {4})});
    const auto json = nlohmann::ordered_json::parse(to_json(r).dump());
    EXPECT_EQ(json.at("schema"), 1);
    const Record back = record_from_json(json, "mem");
    ASSERT_EQ(back.rows.size(), 2u);
    EXPECT_EQ(back.rows[0].reps, row.reps);
    EXPECT_EQ(back.rows[0].extra.at("params").at("shape"), "4096");
    EXPECT_EQ(back.rows[1].direction, Direction::Lower);
    EXPECT_EQ(back.header.at("suite"), "test");
    EXPECT_EQ(to_json(back).dump(), to_json(r).dump());
}

// The error `record_from_json` gives after `edit` spoils a good record.
std::string error_after(const std::function<void(nlohmann::ordered_json&)>& edit) {
    auto json = nlohmann::ordered_json::parse(to_json(record_of({rate("a", {1, 2, 3}), rate("b", {1, 2, 3})})).dump());
    edit(json);
    try {
        record_from_json(json, "r.json");
    } catch (const FormatError& e) {
        return e.what();
    }
    return "accepted";
}

TEST(BenchRecord, SchemaViolationsNameTheFileAndField) {
    EXPECT_EQ(error_after([](auto&) {}), "accepted");
    EXPECT_THAT(error_after([](auto& j) { j["schema"] = 2; }), HasSubstr("r.json: schema: version 2"));
    EXPECT_THAT(error_after([](auto& j) { j["machine"].erase("cpu"); }), HasSubstr("r.json: machine.cpu: missing"));
    EXPECT_THAT(error_after([](auto& j) { j["machine"]["cores"] = "two"; }), HasSubstr("machine.cores: expected number"));
    EXPECT_THAT(error_after([](auto& j) { j["machine"]["load_after"] = {1}; }), HasSubstr("machine.load_after"));
    EXPECT_THAT(error_after([](auto& j) { j["build"]["dirty"] = "no"; }), HasSubstr("build.dirty: expected boolean"));
    EXPECT_THAT(error_after([](auto& j) { j["rows"][1]["name"] = "a"; }), HasSubstr("rows[1].name: \"a\" appears twice"));
    EXPECT_THAT(error_after([](auto& j) { j["rows"][0]["direction"] = "up"; }), HasSubstr("rows[0] (a).direction"));
    EXPECT_THAT(error_after([](auto& j) { j["rows"][0]["reps"] = nlohmann::ordered_json::array(); }), HasSubstr("rows[0] (a).reps"));
    EXPECT_THAT(error_after([](auto& j) { j["rows"][0]["median"] = 2.5; }), HasSubstr("rows[0] (a).median: 2.5 does not match"));
    EXPECT_THAT(error_after([](auto& j) { j["rows"][0]["noisy"] = false; }), HasSubstr("rows[0] (a).noisy"));
    EXPECT_THAT(error_after([](auto& j) { j.erase("rows"); }), HasSubstr("r.json: rows: missing"));
}

TEST(BenchRecord, CommittedRecordsFollowTheSchema) {
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(FORGE_BENCH_RECORDS)) {
        if (entry.path().extension() != ".json") continue;
        EXPECT_NO_THROW(read_record(entry.path().string())) << entry.path();
        ++checked;
    }
    EXPECT_GE(checked, 2);
}

TEST(BenchReport, TablesAndChartShowEveryRow) {
    const Record base = record_of({rate("a<&>", around(10, 0.01)), rate("gone", around(5, 0.01))});
    const Record next = record_of({rate("a<&>", around(8, 0.01))});
    const Comparison c = compare(base, next, 0.05);
    const Labels labels{"base.json", "new.json"};
    const std::string md = markdown_report(c, base, next, labels, "chart.svg");
    EXPECT_THAT(md, HasSubstr("![change per row](chart.svg)"));
    // A row name is text from a file: no raw HTML in the report (it came through as written).
    EXPECT_THAT(md, HasSubstr("| a&lt;&amp;&gt; | GB/s | 10 ±0.8% | 8 ±0.8% | -20.0% |"));
    EXPECT_THAT(md, ::testing::Not(HasSubstr("a<&>")));
    EXPECT_THAT(md, HasSubstr("**slower (regression)**"));
    EXPECT_THAT(md, HasSubstr("| gone |"));
    const std::string svg = svg_chart(c, labels);
    EXPECT_THAT(svg, HasSubstr("xmlns=\"http://www.w3.org/2000/svg\""));
    EXPECT_THAT(svg, HasSubstr("a&lt;&amp;&gt;"));
    EXPECT_THAT(svg, ::testing::Not(HasSubstr("a<&>")));
}

}  // namespace
}  // namespace forge::app::bench
