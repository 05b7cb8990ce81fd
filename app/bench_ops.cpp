// `forge bench ops`: the speed of the core ops against what this machine can do at best.
// Compute-bound ops (large matmuls) are compared with the measured f32 FMA peak, memory-bound
// ones (matrix-vector, copies, conversions, element-wise) with the measured read bandwidth.
// Memory-bound ops stream through memory_bench_bytes() (four times the last-level cache): on
// buffers that fit in the cache they would measure the cache and beat the memory bandwidth.
#include "app/bench.h"
#include "app/bench_suites.h"
#include "app/machine_info.h"
#include "app/timing.h"
#include "core/buffer_pool.h"
#include "core/ops/binary.h"
#include "core/ops/conv1d.h"
#include "core/tensor_copy.h"
#include "core/ops/matmul.h"
#include "core/ops/softmax.h"
#include "core/ops/unary.h"
#include "core/random/random_tensor.h"
#include "core/tensor.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace forge::app {
namespace {

Tensor random_tensor(const Shape& shape) { return random::uniform_tensor(shape, 42, -1.0f, 1.0f); }

// Random weights of the given type; f16 ones are made a row block at a time, so that a
// gigabyte of f16 never needs two gigabytes of f32 first.
Tensor random_weights(std::int64_t n, std::int64_t k, DType dtype) {
    if (dtype != DType::F16) return random_tensor({n, k}).to(dtype);
    Tensor w = Tensor::empty({n, k}, DType::F16);
    const std::int64_t block = std::min<std::int64_t>(n, 1024);
    const Tensor source = random_tensor({block, k}).to(DType::F16);
    for (std::size_t at = 0; at < w.nbytes(); at += source.nbytes())
        std::memcpy(w.raw_data() + at, source.raw_data(), std::min(source.nbytes(), w.nbytes() - at));
    return w;
}

std::string size_text(double bytes) {
    return bytes >= (1 << 30) ? fmt::format("{:.3g} GiB", bytes / (1 << 30)) : fmt::format("{:.3g} MiB", bytes / (1 << 20));
}

// A row in GFLOP/s against the FMA peak, or in GB/s against the read bandwidth; `params` keeps
// the work per run so a table can show both rates and the time.
bench::Row op_row(const std::string& name, const std::string& shape, double flop, double bytes,
                  const std::vector<double>& seconds) {
    const nlohmann::ordered_json params = {{"shape", shape}, {"flop", flop}, {"bytes", bytes}};
    if (flop > 0) {
        return rate_row("ops/" + name + " " + shape, "GFLOP/s", flop / 1e9, seconds,
                        {{"limit", {{"row", kPeakFlopsRow}}}, {"params", params}});
    }
    return rate_row("ops/" + name + " " + shape, "GB/s", bytes / 1e9, seconds,
                    {{"limit", {{"row", kReadBandwidthRow}}}, {"params", params}});
}

// y = x·Wᵀ, the linear-layer layout: x [m, k] f32, W [n, k] f32 or f16. A memory-bound matvec
// (m = 1) counts bytes; the others count FLOP.
bench::Row bench_linear(std::int64_t m, std::int64_t k, std::int64_t n, DType weight_dtype, int reps) {
    const Tensor x = random_tensor({m, k});
    const Tensor w = random_weights(n, k, weight_dtype);
    const auto seconds = time_reps([&] { (void)matmul(x, w, false, true); }, reps);
    const double bytes = static_cast<double>(x.nbytes() + w.nbytes()) + 4.0 * static_cast<double>(m * n);
    const std::string name = fmt::format("x·Wᵀ W {}", dtype_name(weight_dtype));
    if (m == 1) return op_row(name, fmt::format("1x{}x{} ({})", k, n, size_text(bytes)), 0, bytes, seconds);
    return op_row(name, fmt::format("{}x{}x{}", m, k, n), 2.0 * static_cast<double>(m * n * k), bytes, seconds);
}

bench::Row bench_conv1d(int reps) {
    // A dilated causal convolution shaped like a neural amp model's layer.
    const std::int64_t channels = 16, taps = 3, length = 1 << 16;
    const Tensor signal = random_tensor({1, channels, length});
    const Tensor weight = random_tensor({channels, channels, taps});
    const Tensor bias = random_tensor({channels});
    const auto seconds = time_reps([&] { (void)conv1d(signal, weight, bias, {64}); }, reps);
    return op_row("conv1d causal d=64", fmt::format("16x16x3 T={}", length),
                  2.0 * static_cast<double>(channels * channels * taps * length), 8.0 * channels * length, seconds);
}

// The memory-bound element-wise ops, reading a buffer of half memory_bench_bytes() and writing
// another: quick runs exp, full runs them all.
void bench_memory_ops(const BenchPlan& plan, std::vector<bench::Row>& rows) {
    const std::int64_t elements = static_cast<std::int64_t>(memory_bench_bytes() / 2 / sizeof(float));
    const std::int64_t cols = 4096, lines = elements / cols;
    const std::string size = size_text(static_cast<double>(elements) * 4);
    const Tensor x = random_tensor({lines, cols});
    const auto add_row = [&](const std::string& name, double bytes_per_element, const std::function<void()>& op) {
        rows.push_back(op_row(name, size, 0, bytes_per_element * static_cast<double>(elements), time_reps(op, plan.reps)));
    };
    add_row("exp f32", 8, [&] { (void)exp(x); });
    BufferPool::global().trim();
    if (!plan.full) return;
    {
        const Tensor y = random_tensor({lines, cols});
        add_row("add f32", 12, [&] { (void)add(x, y); });
    }
    BufferPool::global().trim();
    add_row("softmax rows of 4096", 8, [&] { (void)softmax(x); });
    add_row("copy f32 (strided view)", 8, [&] { (void)copy_to_contiguous(x.narrow(1, 0, cols)); });
    add_row(fmt::format("transpose f32 {}x{}", lines, cols), 8, [&] { (void)x.transpose(0, 1).contiguous(); });
    add_row("convert f32->f16", 6, [&] { (void)x.to(DType::F16); });
    BufferPool::global().trim();
    const Tensor half = x.to(DType::F16);
    add_row("convert f16->f32", 6, [&] { (void)half.to(DType::F32); });
}

double row_seconds(const bench::Row& row) {
    const auto& params = row.extra.at("params");
    const double work = row.unit == "GFLOP/s" ? params.at("flop").get<double>() : params.at("bytes").get<double>();
    return work / 1e9 / row.summary.median;
}

void print_table(const Machine& machine, const std::vector<bench::Row>& rows) {
    const auto median_of = [&](const char* name) {
        for (const auto& r : rows)
            if (r.name == name) return r.summary.median;
        return 0.0;
    };
    const double peak = median_of(kPeakFlopsRow), bandwidth = median_of(kReadBandwidthRow);
    fmt::print("machine: {} ({}, {} backend, {} threads, last-level cache {})\n", machine.cpu, machine.instruction_set,
               machine.backend, machine.threads, size_text(static_cast<double>(machine.llc_bytes)));
    fmt::print("measured peak f32 FMA: {:.1f} GFLOP/s   read bandwidth: {:.1f} GB/s   memcpy: {:.1f} GB/s\n\n", peak,
               bandwidth, median_of(kCopyBandwidthRow));
    fmt::print("{:<26} {:<22} {:>9} {:>9} {:>7} {:>8} {:>6} {:>6}\n", "op", "shape", "ms", "GFLOP/s", "%peak", "GB/s", "%bw",
               "cv%");
    for (const auto& r : rows) {
        if (r.name.starts_with("machine/")) continue;  // the machine's own rows are in the header above
        const auto& params = r.extra.at("params");
        const double seconds = row_seconds(r);
        const double flop = params.at("flop").get<double>(), gbs = params.at("bytes").get<double>() / seconds / 1e9;
        const std::string gflops = flop > 0 ? fmt::format("{:.1f}", flop / seconds / 1e9) : "-";
        const std::string percent_peak = flop > 0 ? fmt::format("{:.0f}", 100.0 * flop / seconds / 1e9 / peak) : "-";
        const std::string op = r.name.substr(4, r.name.size() - 4 - params.at("shape").get<std::string>().size() - 1);
        fmt::print("{:<26} {:<22} {:>9.3f} {:>9} {:>7} {:>8.1f} {:>6.0f} {:>6.1f}\n", op, params.at("shape").get<std::string>(),
                   seconds * 1e3, gflops, percent_peak, gbs, 100.0 * gbs / bandwidth, 100 * r.summary.cv);
    }
}

}  // namespace

std::vector<bench::Row> machine_rows(const BenchPlan& plan) {
    const std::size_t bytes = memory_bench_bytes();
    const nlohmann::ordered_json buffer = {{"params", {{"bytes", bytes}}}};
    auto scaled = [](std::vector<double> rates) {
        for (double& r : rates) r /= 1e9;
        return rates;
    };
    return {bench::make_row(kPeakFlopsRow, "GFLOP/s", bench::Direction::Higher, scaled(measure_peak_flops(plan.reps))),
            bench::make_row(kReadBandwidthRow, "GB/s", bench::Direction::Higher,
                            scaled(measure_read_bandwidth(bytes, plan.reps)), buffer),
            // memcpy's limit is the read probe: a plain copy that beats it says the probe under-measures.
            bench::make_row(kCopyBandwidthRow, "GB/s", bench::Direction::Higher,
                            scaled(measure_copy_bandwidth(bytes, plan.reps)),
                            {{"params", {{"bytes", bytes}}}, {"limit", {{"row", kReadBandwidthRow}}}})};
}

std::vector<bench::Row> ops_rows(const BenchPlan& plan) {
    std::vector<bench::Row> rows;
    const std::int64_t matvec_n = static_cast<std::int64_t>(memory_bench_bytes() / (4 * 4096));
    rows.push_back(bench_linear(1, 4096, matvec_n, DType::F32, plan.reps));
    rows.push_back(bench_linear(128, 4096, 4096, DType::F32, plan.reps));
    if (plan.full) {
        rows.push_back(bench_linear(512, 1024, 3072, DType::F32, plan.reps));
        rows.push_back(bench_linear(1024, 1024, 1024, DType::F32, plan.reps));
        rows.push_back(bench_linear(1, 4096, 2 * matvec_n, DType::F16, plan.reps));
        rows.push_back(bench_linear(128, 4096, 4096, DType::F16, plan.reps));
        const Tensor a = random_tensor({1024, 1024}), b = random_tensor({1024, 1024});
        rows.push_back(op_row("a·b f32", "1024x1024x1024", 2.0 * 1024 * 1024 * 1024, 3.0 * 4 * 1024 * 1024,
                              time_reps([&] { (void)matmul(a, b); }, plan.reps)));
    }
    BufferPool::global().trim();
    rows.push_back(bench_conv1d(plan.reps));
    bench_memory_ops(plan, rows);
    return rows;
}

void attach_limit_fractions(std::vector<bench::Row>& rows) {
    for (auto& row : rows) {
        auto limit = row.extra.find("limit");
        if (limit == row.extra.end()) continue;
        for (const auto& ceiling : rows) {
            if (ceiling.name == limit->at("row").get<std::string>() && ceiling.unit == row.unit)
                (*limit)["fraction"] = row.summary.median / ceiling.summary.median;
        }
    }
}

void add_bench_ops_command(CLI::App& bench, CommandTable& commands) {
    CLI::App* ops = bench.add_subcommand("ops", "Matmul GFLOP/s and memory-bound op GB/s against this machine's peak");
    auto json = std::make_shared<bool>(false);
    auto plan = std::make_shared<BenchPlan>(BenchPlan{true, 7});
    ops->add_flag("--json", *json, "Print the rows as JSON (the rows of a benchmark record) instead of a table");
    ops->add_option("--reps", plan->reps, "Measured repetitions after the warm-up (default 7)")->check(CLI::Range(1, 1000));
    auto machine_only = std::make_shared<bool>(false);
    ops->add_flag("--machine", *machine_only,
                  "Only the machine's rows (FMA peak, read and memcpy bandwidth): seconds, for a script that needs the "
                  "bound beside each of its runs");
    commands.add(ops, [json, plan, machine_only] {
        std::vector<bench::Row> rows = machine_rows(*plan);
        if (!*machine_only) {
            for (auto& row : ops_rows(*plan)) rows.push_back(std::move(row));
        }
        attach_limit_fractions(rows);
        if (*json) {
            bench::Record record;
            record.rows = rows;
            fmt::print("{}\n", to_json(record)["rows"].dump(1));
        } else {
            print_table(describe_machine(), rows);
        }
        return 0;
    });
}

}  // namespace forge::app
