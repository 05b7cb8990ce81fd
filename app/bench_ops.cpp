// `forge bench ops`: the speed of the core ops against what this machine can do at best.
// Compute-bound ops (large matmuls) are compared with the measured f32 FMA peak, memory-bound
// ones (matrix-vector, copies, conversions, element-wise) with the measured read bandwidth.
#include "app/bench.h"
#include "app/machine_info.h"
#include "app/timing.h"
#include "core/ops/binary.h"
#include "core/ops/conv1d.h"
#include "core/tensor_copy.h"
#include "core/ops/matmul.h"
#include "core/ops/softmax.h"
#include "core/ops/unary.h"
#include "core/tensor.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace forge::app {
namespace {

constexpr int kReps = 7;

struct Measurement {
    std::string kind;  // "matmul", "conv1d" or "memory"
    std::string name;
    std::string shape;
    double seconds = 0;
    double flops = 0;  // floating-point operations per run (0 for pure data movement)
    double bytes = 0;  // bytes read + written per run
};

Tensor random_tensor(const Shape& shape) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(static_cast<std::size_t>(shape.product()));
    for (auto& v : values) v = uniform(rng);
    return Tensor::from(std::span<const float>(values), shape);
}

// y = x·Wᵀ, the linear-layer layout: x [m, k] f32, W [n, k] f32 or f16.
Measurement bench_linear(std::int64_t m, std::int64_t k, std::int64_t n, DType weight_dtype) {
    const Tensor x = random_tensor({m, k});
    const Tensor w = random_tensor({n, k}).to(weight_dtype);
    const double seconds = median_seconds([&] { (void)matmul(x, w, false, true); }, kReps);
    const double bytes = static_cast<double>(x.nbytes() + w.nbytes()) + 4.0 * static_cast<double>(m * n);
    return {"matmul", fmt::format("x·Wᵀ W {}", dtype_name(weight_dtype)), fmt::format("{}x{}x{}", m, k, n), seconds,
            2.0 * static_cast<double>(m * n * k), bytes};
}

// A memory-bound op over 16 Mi f32 elements (64 MiB, twice the L3 cache).
constexpr std::int64_t kElements = std::int64_t{1} << 24;

Measurement bench_memory(const std::string& name, double bytes_per_element, const std::function<void()>& op) {
    return {"memory", name, fmt::format("{}", kElements), median_seconds(op, kReps), 0.0,
            bytes_per_element * static_cast<double>(kElements)};
}

std::vector<Measurement> run_benchmarks() {
    std::vector<Measurement> results;
    for (const auto& [m, k, n] : {std::array<std::int64_t, 3>{1, 4096, 4096}, {128, 4096, 4096}, {512, 1024, 3072},
                                  {1024, 1024, 1024}}) {
        results.push_back(bench_linear(m, k, n, DType::F32));
    }
    results.push_back(bench_linear(1, 4096, 4096, DType::F16));
    results.push_back(bench_linear(128, 4096, 4096, DType::F16));
    {
        const Tensor a = random_tensor({1024, 1024}), b = random_tensor({1024, 1024});
        const double seconds = median_seconds([&] { (void)matmul(a, b); }, kReps);
        results.push_back({"matmul", "a·b f32", "1024x1024x1024", seconds, 2.0 * 1024 * 1024 * 1024, 3.0 * 4 * 1024 * 1024});
    }

    {
        // A dilated causal convolution shaped like a neural amp model's layer.
        const std::int64_t channels = 16, taps = 3, length = 1 << 16;
        const Tensor signal = random_tensor({1, channels, length});
        const Tensor weight = random_tensor({channels, channels, taps});
        const Tensor bias = random_tensor({channels});
        const double seconds = median_seconds([&] { (void)conv1d(signal, weight, bias, {64}); }, kReps);
        results.push_back({"conv1d", "conv1d causal d=64", fmt::format("16x16x3 T={}", length), seconds,
                           2.0 * static_cast<double>(channels * channels * taps * length), 8.0 * channels * length});
    }

    const Tensor x = random_tensor({kElements / 4096, 4096});
    const Tensor y = random_tensor({kElements / 4096, 4096});
    results.push_back(bench_memory("add f32", 12, [&] { (void)add(x, y); }));
    results.push_back(bench_memory("exp f32", 8, [&] { (void)exp(x); }));
    results.push_back(bench_memory("softmax rows of 4096", 8, [&] { (void)softmax(x); }));
    results.push_back(bench_memory("copy f32 (strided view)", 8, [&] { (void)copy_to_contiguous(x.narrow(1, 0, 4096)); }));
    results.push_back(bench_memory("transpose f32 4096x4096", 8, [&] { (void)x.transpose(0, 1).contiguous(); }));
    results.push_back(bench_memory("convert f32->f16", 6, [&] { (void)x.to(DType::F16); }));
    const Tensor half = x.to(DType::F16);
    results.push_back(bench_memory("convert f16->f32", 6, [&] { (void)half.to(DType::F32); }));
    return results;
}

struct Ceilings {
    double peak_flops;
    double read_bandwidth;
};

nlohmann::json to_json(const Machine& machine, const Ceilings& ceilings, const std::vector<Measurement>& results) {
    nlohmann::json out;
    out["machine"] = {{"cpu", machine.cpu},
                      {"instruction_set", machine.instruction_set},
                      {"backend", machine.backend},
                      {"threads", machine.threads},
                      {"peak_gflops", ceilings.peak_flops / 1e9},
                      {"read_bandwidth_gbs", ceilings.read_bandwidth / 1e9}};
    out["results"] = nlohmann::json::array();
    for (const auto& r : results) {
        nlohmann::json entry = {{"kind", r.kind}, {"name", r.name}, {"shape", r.shape}, {"ms", r.seconds * 1e3},
                                {"gbs", r.bytes / r.seconds / 1e9},
                                {"percent_of_bandwidth", 100.0 * r.bytes / r.seconds / ceilings.read_bandwidth}};
        if (r.flops > 0) {
            entry["gflops"] = r.flops / r.seconds / 1e9;
            entry["percent_of_peak"] = 100.0 * r.flops / r.seconds / ceilings.peak_flops;
        }
        out["results"].push_back(entry);
    }
    return out;
}

void print_table(const Machine& machine, const Ceilings& ceilings, const std::vector<Measurement>& results) {
    fmt::print("machine: {} ({}, {} backend, {} threads)\n", machine.cpu, machine.instruction_set, machine.backend,
               machine.threads);
    fmt::print("measured peak f32 FMA: {:.1f} GFLOP/s   read bandwidth: {:.1f} GB/s\n\n", ceilings.peak_flops / 1e9,
               ceilings.read_bandwidth / 1e9);
    fmt::print("{:<26} {:<16} {:>9} {:>9} {:>7} {:>8} {:>6}\n", "op", "shape", "ms", "GFLOP/s", "%peak", "GB/s", "%bw");
    for (const auto& r : results) {
        const double gbs = r.bytes / r.seconds / 1e9;
        const std::string gflops = r.flops > 0 ? fmt::format("{:.1f}", r.flops / r.seconds / 1e9) : "-";
        const std::string peak = r.flops > 0 ? fmt::format("{:.0f}", 100.0 * r.flops / r.seconds / ceilings.peak_flops) : "-";
        fmt::print("{:<26} {:<16} {:>9.3f} {:>9} {:>7} {:>8.1f} {:>6.0f}\n", r.name, r.shape, r.seconds * 1e3, gflops, peak,
                   gbs, 100.0 * gbs * 1e9 / ceilings.read_bandwidth);
    }
}

}  // namespace

void add_bench_ops_command(CLI::App& bench, CommandTable& commands) {
    CLI::App* ops = bench.add_subcommand("ops", "Matmul GFLOP/s and memory-bound op GB/s against this machine's peak");
    auto json = std::make_shared<bool>(false);
    ops->add_flag("--json", *json, "Print one JSON object instead of a table");
    commands.add(ops, [json] {
        const Machine machine = describe_machine();
        const Ceilings ceilings{measure_peak_flops(), measure_read_bandwidth()};
        const auto results = run_benchmarks();
        if (*json) fmt::print("{}\n", to_json(machine, ceilings, results).dump(2));
        else print_table(machine, ceilings, results);
        return 0;
    });
}

}  // namespace forge::app
