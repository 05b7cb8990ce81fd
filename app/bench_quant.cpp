// `forge bench quant [--json]`: per block format, how fast forge decodes it (GB/s of blocks
// read and floats written) and multiplies with it (quantized matrix-vector and matrix-matrix,
// GFLOP/s counting a multiply-add as two), single-threaded scalar vs simd kernels and through
// the threaded front-end that `forge chat` runs (infer::linear, with Q4_0 / Q8_0 weights
// interleaved where the build has that kernel, as the model loader prepares them). A 2048 x 4096 weight matrix (8 Mi weights) keeps the matvec memory-bound.
// With --ggml-json FILE (written by tools/bench_quant_ggml.cpp, which times llama.cpp's ggml on
// the same shapes) the table adds ggml's single-thread numbers and the ratios forge simd / ggml;
// tools/bench_quant_side_by_side.sh runs both.
#include "app/bench.h"
#include "app/bench_suites.h"
#include "app/machine_info.h"
#include "app/timing.h"
#include "core/infer/linear.h"
#include "core/quant/block_types.h"
#include "core/quant/quantize.h"
#include "kernels/backend.h"
#include "kernels/dequantize.h"
#include "kernels/quant_dot.h"
#include "kernels/quantize.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <vector>

namespace forge::app {
namespace {

constexpr std::int64_t kRows = 2048, kCols = 4096;

// The six measurements of a format, as row names: "quant/Q4_0 dequantize simd 1 thread", ...
constexpr const char* kDequantScalar = "dequantize scalar 1 thread";
constexpr const char* kDequantSimd = "dequantize simd 1 thread";
constexpr const char* kMatvecScalar = "matvec scalar 1 thread";
constexpr const char* kMatvecSimd = "matvec simd 1 thread";
constexpr const char* kMatvecThreaded = "matvec threaded";
constexpr const char* kMatmul32Threaded = "matmul m=32 threaded";

std::string row_name(DType dtype, const char* measurement) {
    return fmt::format("quant/{} {}", dtype_name(dtype), measurement);
}

// The formats of the quick suite: the common llama.cpp weight types.
bool in_quick_suite(DType dtype) {
    return dtype == DType::Q4_0 || dtype == DType::Q8_0 || dtype == DType::Q4_K || dtype == DType::Q6_K;
}

// llama.cpp's numbers for one format (one thread, kernel only), from --ggml-json.
struct GgmlResult {
    double dequant_gbs = 0, matvec_gflops = 0;
};
using GgmlResults = std::map<std::string, GgmlResult>;

GgmlResults read_ggml_json(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(fmt::format("{}: cannot open the ggml benchmark file", path));
    GgmlResults out;
    try {
        const auto j = nlohmann::json::parse(in);
        for (const auto& r : j.at("results")) {
            out[r.at("format").get<std::string>()] = {r.at("dequantize_gbs").get<double>(), r.at("matvec_gflops").get<double>()};
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("{}: not a tools/bench_quant_ggml output: {}", path, e.what()));
    }
    return out;
}

Tensor random_weights() {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 0.05f);
    Tensor w = Tensor::empty({kRows, kCols});
    for (auto& v : w.span<float>()) v = normal(rng);
    return w;
}

// Formats forge cannot encode (IQ4_NL, IQ4_XS, MXFP4) get random blocks with a moderate scale:
// their speed does not depend on the values.
template <typename Block>
Tensor weights_in(DType dtype, const Tensor& weights_f32) {
    if (quant::can_encode(dtype)) return quant::quantize(weights_f32, dtype);
    Tensor w = Tensor::empty({kRows, kCols}, dtype);
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> byte(0, 255);
    auto* raw = reinterpret_cast<std::uint8_t*>(w.raw_data());
    for (std::size_t i = 0; i < w.nbytes(); ++i) raw[i] = static_cast<std::uint8_t>(byte(rng));
    for (auto& b : std::span<Block>(reinterpret_cast<Block*>(raw), w.nbytes() / sizeof(Block))) {
        if constexpr (requires { b.e; }) b.e = 119;  // MXFP4: a power-of-two scale, 2^(119 - 128) ≈ 0.002
        else if constexpr (std::is_same_v<decltype(b.d), float>) b.d = 0.002f;
        else b.d = kernels::f32_to_f16(0.002f);
    }
    return w;
}

// The rows of one format. The 2048 x 4096 weights (a few MiB) stay in the cache: these rows
// measure the kernels' throughput, not memory (their params say so).
template <typename Block>
void bench_format(DType dtype, const Tensor& weights_f32, const BenchPlan& plan, std::vector<bench::Row>& rows) {
    using Act = quant::ActivationBlock<Block>;
    const Tensor w = weights_in<Block>(dtype, weights_f32);
    const std::span<const Block> blocks(reinterpret_cast<const Block*>(w.raw_data()), w.nbytes() / sizeof(Block));
    const nlohmann::ordered_json extra = {{"params", {{"rows", kRows}, {"cols", kCols}, {"resident", "cache"}}}};
    const auto add = [&](const char* measurement, const char* unit, double work, const std::vector<double>& seconds) {
        rows.push_back(rate_row(row_name(dtype, measurement), unit, work / 1e9, seconds, extra));
    };
    std::vector<float> out(static_cast<std::size_t>(kRows * kCols));
    const double dequant_bytes = static_cast<double>(w.nbytes()) + 4.0 * static_cast<double>(out.size());
    if (plan.full || !kernels::kHasSimdBackend)
        add(kDequantScalar, "GB/s", dequant_bytes, time_reps([&] { kernels::scalar::dequantize(blocks, out); }, plan.reps));
    if constexpr (kernels::kHasSimdBackend) {
        add(kDequantSimd, "GB/s", dequant_bytes, time_reps([&] { kernels::simd::dequantize(blocks, out); }, plan.reps));
    }
    // The activation row, quantized once as the matmul would.
    std::vector<float> x(static_cast<std::size_t>(kCols), 0.5f);
    std::vector<Act> act(static_cast<std::size_t>(kCols / Act::kSize));
    kernels::scalar::quantize(x, std::span<Act>(act));
    const auto per_row = static_cast<std::size_t>(kCols / Block::kSize);
    const double flops = 2.0 * static_cast<double>(kRows * kCols);
    float sink = 0;
    auto matvec = [&](auto dot) {
        return [&, dot] {
            for (std::int64_t row = 0; row < kRows; ++row) sink += dot(blocks.subspan(static_cast<std::size_t>(row) * per_row, per_row), std::span<const Act>(act));
        };
    };
    if (plan.full || !kernels::kHasSimdBackend)
        add(kMatvecScalar, "GFLOP/s", flops, time_reps(matvec([](auto a, auto b) { return kernels::scalar::dot(a, b); }), plan.reps));
    if constexpr (kernels::kHasSimdBackend) {
        add(kMatvecSimd, "GFLOP/s", flops, time_reps(matvec([](auto a, auto b) { return kernels::simd::dot(a, b); }), plan.reps));
    }
    const infer::Linear layer{w, Tensor{}, infer::InterleavedWeights::from(w, false)};
    infer::ActivationScratch scratch(32, kCols);
    const std::vector<float> x32(static_cast<std::size_t>(32 * kCols), 0.5f);
    std::vector<float> y32(static_cast<std::size_t>(32 * kRows));
    add(kMatvecThreaded, "GFLOP/s", flops, time_reps([&] { infer::linear(layer, x32, 1, y32, scratch); }, plan.reps));
    if (plan.full) {
        add(kMatmul32Threaded, "GFLOP/s", 32 * flops,
            time_reps([&] { infer::linear(layer, x32, 32, y32, scratch); }, plan.reps));
    }
    if (sink == 12345.0f) fmt::print(" ");  // keep the kernel calls observable
}

constexpr DType kFormats[] = {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0,
                              DType::Q2_K, DType::Q3_K, DType::Q4_K, DType::Q5_K, DType::Q6_K,
                              DType::IQ4_NL, DType::IQ4_XS, DType::TQ1_0, DType::TQ2_0, DType::MXFP4};

// The median of a row, 0 when it was not measured.
double median_of(const std::vector<bench::Row>& rows, DType dtype, const char* measurement) {
    const std::string name = row_name(dtype, measurement);
    for (const auto& r : rows)
        if (r.name == name) return r.summary.median;
    return 0.0;
}

double ratio(double forge, double ggml) { return ggml > 0 ? forge / ggml : 0.0; }

void print_json(const Machine& machine, const std::vector<bench::Row>& rows, const GgmlResults& ggml) {
    nlohmann::ordered_json out;
    out["machine"] = {{"cpu", machine.cpu}, {"instruction_set", machine.instruction_set},
                      {"backend", machine.backend}, {"threads", machine.threads}};
    out["shape"] = {{"rows", kRows}, {"cols", kCols}};
    out["results"] = nlohmann::ordered_json::array();
    for (const DType t : kFormats) {
        const auto m = [&](const char* measurement) { return median_of(rows, t, measurement); };
        out["results"].push_back({{"format", dtype_name(t)},
                                  {"dequantize_scalar_gbs", m(kDequantScalar)},
                                  {"dequantize_simd_gbs", m(kDequantSimd)},
                                  {"matvec_scalar_gflops", m(kMatvecScalar)},
                                  {"matvec_simd_gflops", m(kMatvecSimd)},
                                  {"matvec_threaded_gflops", m(kMatvecThreaded)},
                                  {"matmul_m32_threaded_gflops", m(kMatmul32Threaded)}});
        if (const auto g = ggml.find(std::string(dtype_name(t))); g != ggml.end()) {
            auto& row = out["results"].back();
            row["ggml_dequantize_gbs"] = g->second.dequant_gbs;
            row["ggml_matvec_gflops"] = g->second.matvec_gflops;
            row["dequantize_simd_over_ggml"] = ratio(m(kDequantSimd), g->second.dequant_gbs);
            row["matvec_simd_over_ggml"] = ratio(m(kMatvecSimd), g->second.matvec_gflops);
        }
    }
    fmt::print("{}\n", out.dump(2));
}

void print_table(const Machine& machine, const std::vector<bench::Row>& rows, const GgmlResults& ggml) {
    fmt::print("machine: {} ({}, {} backend, {} threads); weights {} x {}\n", machine.cpu, machine.instruction_set,
               machine.backend, machine.threads, kRows, kCols);
    const bool side_by_side = !ggml.empty();
    fmt::print("{:<8} {:>21} {:>21} {:>12} {:>12}", "", "dequantize GB/s", "matvec GFLOP/s (1 thr)", "matvec", "matmul m=32");
    if (side_by_side) fmt::print("   {:>29}", "llama.cpp (ggml, 1 thr)");
    fmt::print("\n{:<8} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12}", "format", "scalar", "simd", "scalar", "simd", "GFLOP/s",
               "GFLOP/s");
    if (side_by_side) fmt::print("   {:>7} {:>7} {:>6} {:>6}", "deq", "matvec", "deq x", "mv x");
    fmt::print("\n");
    for (const DType t : kFormats) {
        const auto m = [&](const char* measurement) { return median_of(rows, t, measurement); };
        fmt::print("{:<8} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>12.2f} {:>12.2f}", dtype_name(t), m(kDequantScalar),
                   m(kDequantSimd), m(kMatvecScalar), m(kMatvecSimd), m(kMatvecThreaded), m(kMatmul32Threaded));
        if (const auto g = ggml.find(std::string(dtype_name(t))); g != ggml.end()) {
            fmt::print("   {:>7.2f} {:>7.2f} {:>6.2f} {:>6.2f}", g->second.dequant_gbs, g->second.matvec_gflops,
                       ratio(m(kDequantSimd), g->second.dequant_gbs), ratio(m(kMatvecSimd), g->second.matvec_gflops));
        }
        fmt::print("\n");
    }
    if (side_by_side) fmt::print("deq x, mv x: forge simd / ggml (above 1: forge is faster)\n");
}

}  // namespace

std::vector<bench::Row> quant_rows(const BenchPlan& plan) {
    const Tensor weights = random_weights();
    std::vector<bench::Row> rows;
    for (const DType t : kFormats) {
        if (!plan.full && !in_quick_suite(t)) continue;
        quant::visit_block_type(t, [&](auto tag) { bench_format<typename decltype(tag)::type>(t, weights, plan, rows); });
    }
    return rows;
}

void add_bench_quant_command(CLI::App& bench, CommandTable& commands) {
    CLI::App* cmd = bench.add_subcommand("quant", "Block formats: dequantize GB/s, quantized matvec/matmul GFLOP/s");
    auto json = std::make_shared<bool>(false);
    auto ggml_json = std::make_shared<std::string>();
    cmd->add_flag("--json", *json, "Print JSON instead of a table");
    cmd->add_option("--ggml-json", *ggml_json,
                    "llama.cpp's numbers (tools/bench_quant_ggml output) to show side by side with forge's");
    auto plan = std::make_shared<BenchPlan>(BenchPlan{true, 5});
    cmd->add_option("--reps", plan->reps, "Measured repetitions after the warm-up (default 5)")->check(CLI::Range(1, 1000));
    commands.add(cmd, [json, ggml_json, plan] {
        const GgmlResults ggml = ggml_json->empty() ? GgmlResults{} : read_ggml_json(*ggml_json);
        const Machine machine = describe_machine();
        const auto rows = quant_rows(*plan);
        if (*json) print_json(machine, rows, ggml);
        else print_table(machine, rows, ggml);
        return 0;
    });
}

}  // namespace forge::app
