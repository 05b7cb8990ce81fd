// `forge bench quant [--json]`: per block format, how fast forge decodes it (GB/s of blocks
// read and floats written) and multiplies with it (quantized matrix-vector and matrix-matrix,
// GFLOP/s counting a multiply-add as two), single-threaded scalar vs simd kernels and through
// the threaded front-end that `forge chat` runs (infer::linear, with Q4_0 / Q8_0 weights
// interleaved where the build has that kernel, as the model loader prepares them). A 2048 x 4096 weight matrix (8 Mi weights) keeps the matvec memory-bound.
// With --ggml-json FILE (written by tools/bench_quant_ggml.cpp, which times llama.cpp's ggml on
// the same shapes) the table adds ggml's single-thread numbers and the ratios forge simd / ggml;
// tools/bench_quant_side_by_side.sh runs both.
#include "app/bench.h"
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

constexpr int kReps = 5;
constexpr std::int64_t kRows = 2048, kCols = 4096;

struct FormatResult {
    std::string format;
    double dequant_scalar_gbs = 0, dequant_simd_gbs = 0;   // one thread, kernel only
    double matvec_scalar_gflops = 0, matvec_simd_gflops = 0;  // one thread, kernel only
    double matvec_gflops = 0, matmul32_gflops = 0;          // front-end, all threads
};

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

template <typename Block>
FormatResult bench_format(DType dtype, const Tensor& weights_f32) {
    using Act = quant::ActivationBlock<Block>;
    FormatResult r;
    r.format = std::string(dtype_name(dtype));
    const Tensor w = weights_in<Block>(dtype, weights_f32);
    const std::span<const Block> blocks(reinterpret_cast<const Block*>(w.raw_data()), w.nbytes() / sizeof(Block));
    std::vector<float> out(static_cast<std::size_t>(kRows * kCols));
    const double dequant_bytes = static_cast<double>(w.nbytes()) + 4.0 * static_cast<double>(out.size());
    r.dequant_scalar_gbs = dequant_bytes / median_seconds([&] { kernels::scalar::dequantize(blocks, out); }, kReps) / 1e9;
    if constexpr (kernels::kHasSimdBackend) {
        r.dequant_simd_gbs = dequant_bytes / median_seconds([&] { kernels::simd::dequantize(blocks, out); }, kReps) / 1e9;
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
    r.matvec_scalar_gflops = flops / median_seconds(matvec([](auto a, auto b) { return kernels::scalar::dot(a, b); }), kReps) / 1e9;
    if constexpr (kernels::kHasSimdBackend) {
        r.matvec_simd_gflops = flops / median_seconds(matvec([](auto a, auto b) { return kernels::simd::dot(a, b); }), kReps) / 1e9;
    }
    const infer::Linear layer{w, Tensor{}, infer::InterleavedWeights::from(w, false)};
    infer::ActivationScratch scratch(32, kCols);
    const std::vector<float> x32(static_cast<std::size_t>(32 * kCols), 0.5f);
    std::vector<float> y32(static_cast<std::size_t>(32 * kRows));
    r.matvec_gflops = flops / median_seconds([&] { infer::linear(layer, x32, 1, y32, scratch); }, kReps) / 1e9;
    r.matmul32_gflops = 32 * flops / median_seconds([&] { infer::linear(layer, x32, 32, y32, scratch); }, 3) / 1e9;
    if (sink == 12345.0f) fmt::print(" ");  // keep the kernel calls observable
    return r;
}

std::vector<FormatResult> run_all() {
    const Tensor weights = random_weights();
    std::vector<FormatResult> results;
    for (const DType t : {DType::Q4_0, DType::Q4_1, DType::Q5_0, DType::Q5_1, DType::Q8_0, DType::Q2_K, DType::Q3_K,
                          DType::Q4_K, DType::Q5_K, DType::Q6_K, DType::IQ4_NL, DType::IQ4_XS, DType::TQ1_0, DType::TQ2_0,
                          DType::MXFP4}) {
        results.push_back(quant::visit_block_type(t, [&](auto tag) {
            return bench_format<typename decltype(tag)::type>(t, weights);
        }));
    }
    return results;
}

double ratio(double forge, double ggml) { return ggml > 0 ? forge / ggml : 0.0; }

void print_json(const Machine& machine, const std::vector<FormatResult>& results, const GgmlResults& ggml) {
    nlohmann::ordered_json out;
    out["machine"] = {{"cpu", machine.cpu}, {"instruction_set", machine.instruction_set},
                      {"backend", machine.backend}, {"threads", machine.threads}};
    out["shape"] = {{"rows", kRows}, {"cols", kCols}};
    out["results"] = nlohmann::ordered_json::array();
    for (const auto& r : results) {
        out["results"].push_back({{"format", r.format},
                                  {"dequantize_scalar_gbs", r.dequant_scalar_gbs},
                                  {"dequantize_simd_gbs", r.dequant_simd_gbs},
                                  {"matvec_scalar_gflops", r.matvec_scalar_gflops},
                                  {"matvec_simd_gflops", r.matvec_simd_gflops},
                                  {"matvec_threaded_gflops", r.matvec_gflops},
                                  {"matmul_m32_threaded_gflops", r.matmul32_gflops}});
        if (const auto g = ggml.find(r.format); g != ggml.end()) {
            auto& row = out["results"].back();
            row["ggml_dequantize_gbs"] = g->second.dequant_gbs;
            row["ggml_matvec_gflops"] = g->second.matvec_gflops;
            row["dequantize_simd_over_ggml"] = ratio(r.dequant_simd_gbs, g->second.dequant_gbs);
            row["matvec_simd_over_ggml"] = ratio(r.matvec_simd_gflops, g->second.matvec_gflops);
        }
    }
    fmt::print("{}\n", out.dump(2));
}

void print_table(const Machine& machine, const std::vector<FormatResult>& results, const GgmlResults& ggml) {
    fmt::print("machine: {} ({}, {} backend, {} threads); weights {} x {}\n", machine.cpu, machine.instruction_set,
               machine.backend, machine.threads, kRows, kCols);
    const bool side_by_side = !ggml.empty();
    fmt::print("{:<8} {:>21} {:>21} {:>12} {:>12}", "", "dequantize GB/s", "matvec GFLOP/s (1 thr)", "matvec", "matmul m=32");
    if (side_by_side) fmt::print("   {:>29}", "llama.cpp (ggml, 1 thr)");
    fmt::print("\n{:<8} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12}", "format", "scalar", "simd", "scalar", "simd", "GFLOP/s",
               "GFLOP/s");
    if (side_by_side) fmt::print("   {:>7} {:>7} {:>6} {:>6}", "deq", "matvec", "deq x", "mv x");
    fmt::print("\n");
    for (const auto& r : results) {
        fmt::print("{:<8} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>12.2f} {:>12.2f}", r.format, r.dequant_scalar_gbs,
                   r.dequant_simd_gbs, r.matvec_scalar_gflops, r.matvec_simd_gflops, r.matvec_gflops, r.matmul32_gflops);
        if (const auto g = ggml.find(r.format); g != ggml.end()) {
            fmt::print("   {:>7.2f} {:>7.2f} {:>6.2f} {:>6.2f}", g->second.dequant_gbs, g->second.matvec_gflops,
                       ratio(r.dequant_simd_gbs, g->second.dequant_gbs), ratio(r.matvec_simd_gflops, g->second.matvec_gflops));
        }
        fmt::print("\n");
    }
    if (side_by_side) fmt::print("deq x, mv x: forge simd / ggml (above 1: forge is faster)\n");
}

}  // namespace

void add_bench_quant_command(CLI::App& bench, CommandTable& commands) {
    CLI::App* cmd = bench.add_subcommand("quant", "Block formats: dequantize GB/s, quantized matvec/matmul GFLOP/s");
    auto json = std::make_shared<bool>(false);
    auto ggml_json = std::make_shared<std::string>();
    cmd->add_flag("--json", *json, "Print JSON instead of a table");
    cmd->add_option("--ggml-json", *ggml_json,
                    "llama.cpp's numbers (tools/bench_quant_ggml output) to show side by side with forge's");
    commands.add(cmd, [json, ggml_json] {
        const GgmlResults ggml = ggml_json->empty() ? GgmlResults{} : read_ggml_json(*ggml_json);
        const Machine machine = describe_machine();
        const auto results = run_all();
        if (*json) print_json(machine, results, ggml);
        else print_table(machine, results, ggml);
        return 0;
    });
}

}  // namespace forge::app
