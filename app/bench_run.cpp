// `forge bench run`: the chosen benches in one go, written as one benchmark record (the
// format of docs/BENCHMARKS.md: machine, build, rows with every repetition).
// `forge bench compare BASE.json NEW.json`: the verdict per row, a terminal table, a Markdown
// report and an SVG chart; exit status 1 when a row regressed beyond the threshold and noise.
#include "app/bench.h"
#include "app/bench_compare.h"
#include "app/bench_report.h"
#include "app/bench_suites.h"
#include "app/build_info.h"
#include "app/cli_checks.h"
#include "app/machine_info.h"
#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "core/thread_pool.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

namespace forge::app {
namespace {

struct RunOptions {
    std::string suite = "quick";
    std::vector<std::string> models;
    std::string out;
    int reps = 0;  // 0: the suite's default
};

struct CompareOptions {
    std::string base, next, threshold = "5%", markdown, svg;
};

// One bench of a suite: its name and what produces its rows.
struct Bench {
    std::string name;
    std::function<std::vector<bench::Row>()> rows;
};

// The benches --suite may list, once: for the validator, the messages and the help text.
constexpr std::array<std::string_view, 6> kBenches{"machine", "ops", "quant", "train", "nam", "llm"};

std::string unknown_bench(const std::string& name) {
    return fmt::format("unknown bench '{}' (quick, full, or a comma-separated list of {})", name, fmt::join(kBenches, ", "));
}

// --suite: quick, full, or names of benches, checked as the command line is parsed (exit 2).
CLI::Validator suite_names() {
    return CLI::Validator(
        [](std::string& suite) -> std::string {
            if (suite == "quick" || suite == "full") return {};
            std::stringstream list(suite);
            for (std::string name; std::getline(list, name, ',');)
                if (std::find(kBenches.begin(), kBenches.end(), name) == kBenches.end()) return unknown_bench(name);
            return {};
        },
        "SUITE");
}

std::vector<Bench> benches_of(const RunOptions& o, BenchPlan& plan) {
    std::vector<std::string> names;
    if (o.suite == "quick" || o.suite == "full") {
        plan.full = o.suite == "full";
        names = {"machine", "ops", "quant", "train", "nam"};
        if (!o.models.empty()) names.push_back("llm");
    } else {
        plan.full = true;
        names.push_back("machine");  // the limits are rows of every record
        std::stringstream list(o.suite);
        for (std::string name; std::getline(list, name, ',');)
            if (name != "machine") names.push_back(name);
    }
    plan.reps = o.reps > 0 ? o.reps : 5;
    std::vector<Bench> benches;
    for (const std::string& name : names) {
        if (name == "machine") benches.push_back({name, [&plan] { return machine_rows(plan); }});
        else if (name == "ops") benches.push_back({name, [&plan] { return ops_rows(plan); }});
        else if (name == "quant") benches.push_back({name, [&plan] { return quant_rows(plan); }});
        else if (name == "train") benches.push_back({name, [&plan] { return train_rows(plan); }});
        else if (name == "nam") benches.push_back({name, [&plan] { return nam_rows(plan, "default"); }});
        else if (name == "llm") {
            check(!o.models.empty(), "--suite llm: give the models with --model M.gguf");
            for (const std::string& model : o.models)
                benches.push_back({"llm " + std::filesystem::path(model).filename().string(),
                                   [&plan, model] { return llm_rows(plan, model); }});
        } else {
            fail("--suite: {}", unknown_bench(name));  // suite_names() refuses it at parse time
        }
    }
    return benches;
}

// Rounded to what uptime shows: more digits are noise.
nlohmann::ordered_json load_json(const std::array<double, 3>& load) {
    const auto rounded = [](double x) { return std::round(x * 100) / 100; };
    return {rounded(load[0]), rounded(load[1]), rounded(load[2])};
}

nlohmann::ordered_json machine_json(const Machine& m, const std::array<double, 3>& load_before,
                                    const std::array<double, 3>& load_after) {
    return {{"cpu", m.cpu},
            {"instruction_set", m.instruction_set},
            {"cores", m.cores},
            {"threads", m.threads},
            {"memory_bytes", m.memory_bytes},
            {"llc_bytes", m.llc_bytes},
            {"kernel", m.kernel},
            {"load_before", load_json(load_before)},
            {"load_after", load_json(load_after)}};
}

nlohmann::ordered_json build_json() {
    const BuildInfo b = build_info();
    return {{"version", b.version}, {"commit", b.commit},       {"dirty", b.dirty},          {"backend", b.backend},
            {"native", b.native},   {"compiler", b.compiler},   {"buildtype", b.buildtype}, {"flags", b.flags}};
}

std::string utc_now() { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr))); }

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void print_rows(std::FILE* out, const std::vector<bench::Row>& rows) {
    for (const auto& r : rows)
        fmt::print(out, "  {:<52} {:>10.4g} {:<12} cv {:>5.1f}%{}\n", r.name, r.summary.median, r.unit, 100 * r.summary.cv,
                   r.noisy ? "  noisy" : "");
}

// Other work on the machine slows the benches down and spreads their numbers: said before they
// start, from the load average (the last minute) and from what the CPUs do right now (a job
// started a moment ago shows in the load average only later).
void warn_if_busy(int cores, const std::array<double, 3>& load) {
    if (load[0] > 0.5 * cores)
        fmt::print(stderr, "bench run: load average {:.2f} on {} cores: other work will disturb the numbers\n", load[0], cores);
    if (const double busy = cpu_busy_fraction(0.5); busy > 0.25)
        fmt::print(stderr, "bench run: other processes keep the CPUs {:.0f}% busy: other work will disturb the numbers\n",
                   100 * busy);
}

int run_suite(const RunOptions& o) {
    check(o.reps >= 0, "--reps must be positive");
    if (!o.out.empty()) {  // before minutes of benches, not after
        checkpoint::check_replaceable_output(o.out);
        for (const std::string& model : o.models) checkpoint::check_not_an_input(o.out, {model});
    }
    BenchPlan plan;
    const std::vector<Bench> benches = benches_of(o, plan);
    const bool terminal = isatty(STDERR_FILENO) != 0;
    const bool progress = spdlog::should_log(spdlog::level::info);  // --quiet: the record and warnings only
    const Machine machine = describe_machine();  // read once: the record's and the warning's
    const auto load_before = load_average();
    warn_if_busy(machine.cores, load_before);
    bench::Record record;
    record.header = {{"created", utc_now()}, {"suite", o.suite}};
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < benches.size(); ++i) {
        const auto bench_start = std::chrono::steady_clock::now();
        if (progress) fmt::print(stderr, "[{}/{}] {}{}", i + 1, benches.size(), benches[i].name, terminal ? " ..." : "\n");
        std::fflush(stderr);
        std::vector<bench::Row> rows = benches[i].rows();
        if (progress) {
            if (terminal) fmt::print(stderr, "\r\x1b[K[{}/{}] {}", i + 1, benches.size(), benches[i].name);
            fmt::print(stderr, "{}: {} rows in {:.1f} s ({:.0f} s so far)\n",
                       terminal ? "" : fmt::format("[{}/{}] {}", i + 1, benches.size(), benches[i].name), rows.size(),
                       seconds_since(bench_start), seconds_since(start));
            print_rows(stderr, rows);
        }
        for (auto& row : rows) record.rows.push_back(std::move(row));
    }
    attach_limit_fractions(record.rows);
    record.machine = machine_json(machine, load_before, load_average());
    record.build = build_json();
    for (const std::string& warning : bench::limit_warnings(record, "bench run"))
        fmt::print(stderr, "warning: {}\n", warning);
    if (o.out.empty()) {
        fmt::print("{}\n", to_json(record).dump(1));
    } else {
        bench::write_record(o.out, record);
        spdlog::info("wrote {} ({} rows, {:.0f} s)", o.out, record.rows.size(), seconds_since(start));
    }
    return 0;
}

// "5%" or "0.05": a fraction; nullopt for anything else.
std::optional<double> parse_threshold(const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    const bool percent = end != nullptr && std::string_view(end) == "%";
    const bool fraction = end != nullptr && *end == '\0' && value < 1;
    if (end == text.c_str() || !(percent || fraction) || !(value >= 0)) return std::nullopt;
    return percent ? value / 100 : value;
}

// The reports may replace neither record nor each other (`--markdown A`, `--svg B`, or one
// file for both, each lost a file).
void check_report_paths(const CompareOptions& o) {
    for (const std::string& out : {o.markdown, o.svg})
        if (!out.empty()) checkpoint::check_not_an_input(out, {o.base, o.next});
    if (!o.markdown.empty() && !o.svg.empty()) checkpoint::check_distinct_outputs(o.markdown, o.svg);
}

// --threshold that parse_threshold does not read is a usage error at parse time.
CLI::Validator threshold_text() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            if (parse_threshold(text)) return {};
            return fmt::format("'{}' is neither a percentage (5%) nor a fraction (0.05)", text);
        },
        "PERCENT");
}

int run_compare(const CompareOptions& o) {
    const double threshold = parse_threshold(o.threshold).value();  // threshold_text() checked it
    check_report_paths(o);
    const bench::Record base = bench::read_record(o.base), next = bench::read_record(o.next);
    // A record compared with itself (a typo, or a path through a link) says nothing about speed.
    std::error_code not_comparable;
    if (std::filesystem::equivalent(o.base, o.next, not_comparable))
        fmt::print(stderr, "warning: {} and {} are the same file: every row compares with itself\n", printable(o.base),
                   printable(o.next));
    const bench::Comparison comparison = bench::compare(base, next, threshold);
    const bench::Labels labels{std::filesystem::path(o.base).filename().string(), std::filesystem::path(o.next).filename().string()};
    const bool colour = isatty(STDOUT_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr;
    bench::print_comparison(stdout, comparison, labels, colour);
    if (!o.svg.empty()) checkpoint::write_file_atomically(o.svg, bench::svg_chart(comparison, labels));
    if (!o.markdown.empty()) {
        std::string link;
        if (!o.svg.empty()) {
            const auto markdown_dir = std::filesystem::absolute(o.markdown).parent_path();
            link = std::filesystem::relative(std::filesystem::absolute(o.svg), markdown_dir).generic_string();
        }
        checkpoint::write_file_atomically(o.markdown, bench::markdown_report(comparison, base, next, labels, link));
    }
    return comparison.regressed() ? 1 : 0;
}

}  // namespace

void add_bench_run_commands(CLI::App& bench, CommandTable& commands) {
    auto run = std::make_shared<RunOptions>();
    CLI::App* run_cmd = bench.add_subcommand("run", "Run a suite of benches and write one benchmark record (JSON)");
    run_cmd->add_option("--suite", run->suite,
                        fmt::format("quick (< 2 min on 2 cores), full (< 15 min), or a comma-separated list of {}", fmt::join(kBenches, ", ")))
        ->check(suite_names());
    run_cmd->add_option("--model", run->models, "A GGUF model for the llm bench (repeatable)")->check(input_file());
    run_cmd->add_option("--out", run->out, "Write the record here (default: stdout)");
    run_cmd->add_option("--reps", run->reps, "Measured repetitions per row (default 5)")->check(CLI::Range(1, 1000));
    commands.add(run_cmd, [run] { return run_suite(*run); });

    auto cmp = std::make_shared<CompareOptions>();
    CLI::App* cmp_cmd = bench.add_subcommand("compare", "Compare two benchmark records row by row; exit 1 on a regression");
    cmp_cmd->add_option("BASE", cmp->base, "The record to compare against (JSON)")->required();
    cmp_cmd->add_option("NEW", cmp->next, "The new record (JSON)")->required();
    cmp_cmd->add_option("--threshold", cmp->threshold, "Slowdown that fails the comparison when outside the noise (default 5%)")
        ->check(threshold_text());
    cmp_cmd->add_option("--markdown", cmp->markdown, "Also write a Markdown report here");
    cmp_cmd->add_option("--svg", cmp->svg, "Also write an SVG chart of the change per row here");
    commands.add(cmp_cmd, [cmp] { return run_compare(*cmp); });
}

}  // namespace forge::app
