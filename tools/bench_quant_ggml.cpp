// The llama.cpp side of `forge bench quant`: times ggml's own kernels on the shapes forge's
// benchmark uses and prints JSON that `forge bench quant --ggml-json FILE` puts beside forge's
// numbers. Not part of the meson build (it needs the prebuilt ggml of the npm package
// @node-llama-cpp/linux-x64, see ../shared/ORACLES.md); tools/bench_quant_side_by_side.sh
// compiles and runs it.
//
// Per format, one thread, the median of --reps runs:
//   dequantize GB/s: type_traits(type)->to_float over the whole weight matrix (bytes of blocks
//     read plus floats written, as forge counts them);
//   matvec GFLOP/s: ggml_get_type_traits_cpu(type)->vec_dot of every weight row with one
//     activation row already quantized to the format's vec_dot_type (a multiply-add is two).
//     The checksum (Σ of the matvec's outputs) should be close to forge's for the same format.
// The loops are in C++, so nothing but ggml's kernels is inside the timed region.
//
// usage: bench_quant_ggml --lib-dir DIR [--variant NAME] [--rows 2048] [--cols 4096] [--reps 5]
//   DIR holds libggml-base.so and libggml-cpu-<variant>.so; without --variant the variant with
//   the best ggml_backend_score() for this CPU is used, as ggml's own loader does.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// ggml's C API as of the npm package's llama.cpp (ggml.h, ggml-cpu.h).
using ToFloat = void (*)(const void* x, float* y, std::int64_t k);
using FromFloat = void (*)(const float* x, void* y, std::int64_t k);
using VecDot = void (*)(int n, float* s, std::size_t bs, const void* x, std::size_t bx, const void* y,
                        std::size_t by, int nrc);

struct TypeTraits {  // struct ggml_type_traits
    const char* type_name;
    std::int64_t blck_size;
    std::int64_t blck_size_interleave;
    std::size_t type_size;
    bool is_quantized;
    ToFloat to_float;
    FromFloat from_float_ref;
};

struct CpuTypeTraits {  // struct ggml_type_traits_cpu
    FromFloat from_float;
    VecDot vec_dot;
    int vec_dot_type;
    std::int64_t nrows;
};

struct Ggml {
    const TypeTraits* (*type_traits)(int type) = nullptr;
    const CpuTypeTraits* (*cpu_type_traits)(int type) = nullptr;
    std::size_t (*quantize_chunk)(int type, const float* src, void* dst, std::int64_t start, std::int64_t nrows,
                                  std::int64_t n_per_row, const float* imatrix) = nullptr;
    FromFloat quantize_row_q8_k = nullptr;
    std::string variant;
};

template <typename F>
F symbol(void* lib, const char* name) {
    void* p = dlsym(lib, name);
    if (!p) throw std::runtime_error(std::string("symbol not found: ") + name);
    return reinterpret_cast<F>(p);
}

void* open_library(const std::filesystem::path& path) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!lib) throw std::runtime_error(std::string("cannot load ") + path.string() + ": " + dlerror());
    return lib;
}

// The CPU variant ggml would pick: the highest ggml_backend_score (0 = unsupported here).
std::string best_variant(const std::filesystem::path& dir) {
    std::string best;
    int best_score = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("libggml-cpu-", 0) != 0 || entry.path().extension() != ".so") continue;
        void* lib = dlopen(entry.path().c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) continue;
        if (auto score = reinterpret_cast<int (*)()>(dlsym(lib, "ggml_backend_score"))) {
            const int s = score();
            if (s > best_score) {
                best_score = s;
                best = name.substr(12, name.size() - 12 - 3);
            }
        }
        dlclose(lib);
    }
    if (best.empty()) throw std::runtime_error("no usable libggml-cpu-*.so in " + dir.string());
    return best;
}

Ggml load(const std::filesystem::path& dir, std::string variant) {
    void* base = open_library(dir / "libggml-base.so");
    if (variant.empty()) variant = best_variant(dir);
    void* cpu = open_library(dir / ("libggml-cpu-" + variant + ".so"));
    symbol<void (*)()>(cpu, "ggml_cpu_init")();
    Ggml g;
    g.type_traits = symbol<decltype(g.type_traits)>(base, "ggml_get_type_traits");
    g.cpu_type_traits = symbol<decltype(g.cpu_type_traits)>(cpu, "ggml_get_type_traits_cpu");
    g.quantize_chunk = symbol<decltype(g.quantize_chunk)>(base, "ggml_quantize_chunk");
    g.quantize_row_q8_k = symbol<FromFloat>(base, "quantize_row_q8_K_ref");
    g.variant = variant;
    return g;
}

template <typename F>
double median_seconds(F&& run, int reps) {
    std::vector<double> t;
    run();  // warm caches and page in the buffers
    for (int r = 0; r < reps; ++r) {
        const auto start = std::chrono::steady_clock::now();
        run();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

struct Format {
    const char* name;
    int type;
};

// forge's names (core/dtype) and ggml's type ids (enum ggml_type).
constexpr Format kFormats[] = {
    {"q4_0", 2},  {"q4_1", 3},  {"q5_0", 6},  {"q5_1", 7},    {"q8_0", 8},    {"q2_K", 10},   {"q3_K", 11},
    {"q4_K", 12}, {"q5_K", 13}, {"q6_K", 14}, {"iq4_nl", 20}, {"iq4_xs", 23}, {"tq1_0", 34}, {"tq2_0", 35},
    {"mxfp4", 39},
};

struct Options {
    std::filesystem::path lib_dir;
    std::string variant;
    std::int64_t rows = 2048, cols = 4096;
    int reps = 5;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) throw std::runtime_error("missing value after " + arg);
        const std::string value = argv[++i];
        if (arg == "--lib-dir") o.lib_dir = value;
        else if (arg == "--variant") o.variant = value;
        else if (arg == "--rows") o.rows = std::stoll(value);
        else if (arg == "--cols") o.cols = std::stoll(value);
        else if (arg == "--reps") o.reps = std::stoi(value);
        else throw std::runtime_error("unknown option " + arg);
    }
    if (o.lib_dir.empty()) throw std::runtime_error("--lib-dir DIR is required");
    if (o.rows <= 0 || o.cols <= 0 || o.cols % 256 != 0 || o.reps <= 0) {
        throw std::runtime_error("--rows, --reps must be positive and --cols a positive multiple of 256");
    }
    return o;
}

void bench(const Ggml& g, const Options& o) {
    // The weights forge's benchmark uses: normal(0, 0.05), a fixed seed.
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 0.05f);
    std::vector<float> weights(static_cast<std::size_t>(o.rows * o.cols));
    for (auto& v : weights) v = normal(rng);
    std::vector<float> decoded(weights.size());
    const std::vector<float> x(static_cast<std::size_t>(o.cols), 0.5f);

    std::printf("{\n  \"ggml\": {\"variant\": \"%s\", \"threads\": 1},\n", g.variant.c_str());
    std::printf("  \"shape\": {\"rows\": %lld, \"cols\": %lld},\n  \"results\": [\n", static_cast<long long>(o.rows),
                static_cast<long long>(o.cols));
    bool first = true;
    for (const Format& f : kFormats) {
        const TypeTraits& t = *g.type_traits(f.type);
        const CpuTypeTraits& cpu = *g.cpu_type_traits(f.type);
        const TypeTraits& act_t = *g.type_traits(cpu.vec_dot_type);
        const auto row_bytes = static_cast<std::size_t>(o.cols / t.blck_size) * t.type_size;
        std::vector<std::uint8_t> w(row_bytes * static_cast<std::size_t>(o.rows));
        g.quantize_chunk(f.type, weights.data(), w.data(), 0, o.rows, o.cols, nullptr);
        std::vector<std::uint8_t> act(static_cast<std::size_t>(o.cols / act_t.blck_size) * act_t.type_size);
        // The reference encoder of the activation type (forge's benchmark quantizes with its
        // reference encoders too). The CPU traits' from_float of this build writes Q8_K blocks
        // that its own vec_dot does not read back correctly (checked against to_float), so it is
        // not used.
        // ggml's type traits leave Q8_K's from_float_ref empty; it is exported by name.
        (act_t.from_float_ref ? act_t.from_float_ref : g.quantize_row_q8_k)(x.data(), act.data(), o.cols);

        const double dequant_bytes = static_cast<double>(w.size()) + 4.0 * static_cast<double>(decoded.size());
        const double dequant_s = median_seconds([&] { t.to_float(w.data(), decoded.data(), o.rows * o.cols); }, o.reps);
        float checksum = 0;  // Σ y: keeps the calls observable, and a sanity check against forge
        const double matvec_s = median_seconds([&] {
            float total = 0;
            for (std::int64_t r = 0; r < o.rows; ++r) {
                float s = 0;
                cpu.vec_dot(static_cast<int>(o.cols), &s, 0, w.data() + static_cast<std::size_t>(r) * row_bytes, 0,
                            act.data(), 0, 1);
                total += s;
            }
            checksum = total;
        }, o.reps);
        const double flops = 2.0 * static_cast<double>(o.rows) * static_cast<double>(o.cols);
        std::printf("%s    {\"format\": \"%s\", \"vec_dot_type\": \"%s\", \"dequantize_gbs\": %.4f, \"matvec_gflops\": %.4f, "
                    "\"checksum\": %.6g}",
                    first ? "" : ",\n", f.name, act_t.type_name, dequant_bytes / dequant_s / 1e9, flops / matvec_s / 1e9,
                    static_cast<double>(checksum));
        first = false;
    }
    std::printf("\n  ]\n}\n");
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options o = parse(argc, argv);
        bench(load(o.lib_dir, o.variant), o);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_quant_ggml: error: %s\n", e.what());
        return 1;
    }
}
