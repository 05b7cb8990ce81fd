// bench_quant_k: the quantized linear kernels alone, one thread, one process, so ratios hold on
// a busy machine. For each weight format and shape, as GMAC/s of the thread's CPU time (best of
// `rounds` alternations, each the fastest of 3 calls):
//   interleaved  simd::gemm over the interleaved layout: AVX-512 VNNI, or the AVX2 kernel where
//                the build has no AVX-512 (K-quants), or absent (Q4_0 without AVX-512)
//   avx2         simd::avx2::gemm, the AVX2 K-quant kernel, where an AVX-512 build has it too
//   dot          one kernels::active::dot per output: what the K-quants ran on AVX2 before
//                their AVX2 kernel, and what Q4_0 runs there
// Prefill is 128 activation rows, decode 1 (the weights stay in cache: the compute side).
//
//   ./build/tools/bench_quant_k [rounds]
//
// `rows` instead: what an N-row product of an interleaved matrix costs per weight byte against
// a 1-row one (decoding N streams at once against one), on the decode shapes of a
// Qwen3-30B-A3B (the Q6_K head [151936 x 1024], q/o-sized [2048 x 1024] and expert-sized
// [768 x 2048] Q4_K, Q8_0 and Q4_0), for N = 1..4 activation rows, each as GB/s of weight bytes per
// CPU second (best of `rounds`) and xN/1, the N-row time over the 1-row one (1.00: N rows
// cost what one does):
//   streamed  a sweep over copies of the matrix that together are larger than the caches, so
//             the weights come from memory as in a decode step
//   hot       the first 256 outputs (a few hundred KiB, within L2) over and over: the
//             arithmetic alone (HOT=n in the environment: the first n outputs)
// --dump FILE writes every product's outputs (N = 1..9) as raw f32 instead, to check that a
// kernel change keeps them to the bit (cmp the files of two builds).
//
//   ./build/tools/bench_quant_k rows [rounds] [--dump FILE]
//
// An AVX2 machine's numbers on an AVX-512 one: a build configured with
// `-Dnative=false -Dcpp_args=-march=haswell` (docs/LLM.md, K-quants on AVX2).
#include "kernels/backend.h"
#include "kernels/quant_dot.h"
#include "kernels/quant_gemm_interleaved.h"
#include "kernels/quant_gemm_interleaved_k.h"
#include "kernels/quantize.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace forge::kernels;

// The CPU time of this thread: on a machine shared with other work the time the thread
// waits for a core does not count (what other work does to the caches still does).
double thread_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <typename Block>
std::size_t group_bytes(std::int64_t blocks) {
    if constexpr (Block::kSize == kSuperBlock) return interleaved_k_group_bytes<Block>(blocks);
    else return interleaved_group_bytes<Block>(blocks);
}

struct Shape {
    std::int64_t n, k, m;  // weight rows, row length, activation rows
};

// One format's operands: random weights and activations, quantized, and the interleaved copy.
template <typename Block>
struct Operands {
    using Act = InterleavedActivation<Block>;
    Shape shape;
    std::vector<Block> w;
    std::vector<Act> a;
    std::vector<CacheLine> packed;
    std::vector<ActivationBlockInfo> info;
    std::vector<float> y;

    Operands(const Shape& s, std::mt19937& rng) : shape(s), y(static_cast<std::size_t>(s.m * s.n)) {
        std::normal_distribution<float> normal;
        std::vector<float> x(static_cast<std::size_t>(s.n * s.k));
        for (float& v : x) v = normal(rng);
        w.resize(x.size() / Block::kSize);
        scalar::quantize(x, std::span(w));
        x.resize(static_cast<std::size_t>(s.m * s.k));
        for (float& v : x) v = normal(rng);
        a.resize(x.size() / Act::kSize);
        scalar::quantize(x, std::span(a));
        if constexpr (kHasInterleavedGemmFor<Block>) {
            packed.resize(static_cast<std::size_t>((s.n + kInterleave - 1) / kInterleave) * group_bytes<Block>(blocks()) / sizeof(CacheLine));
            simd::interleave(w.data(), s.n, blocks(), packed.front().bytes);
            if constexpr (Block::kSize != kSuperBlock) {
                info.resize(a.size());
                simd::activation_info(a.data(), static_cast<std::int64_t>(a.size()), kInterleavedOffset<Block>, info.data());
            }
        }
    }

    std::int64_t blocks() const { return shape.k / Block::kSize; }

    InterleavedGemm<Block> gemm() {
        return {shape.m, shape.n, blocks(), a.data(), info.empty() ? nullptr : info.data(), blocks(), packed.front().bytes,
                y.data(), shape.n};
    }

    void dots() {
        const auto wb = static_cast<std::size_t>(blocks());
        for (std::int64_t i = 0; i < shape.m; ++i) {
            const std::span<const Act> act(a.data() + static_cast<std::size_t>(i) * wb, wb);
            for (std::int64_t j = 0; j < shape.n; ++j) {
                y[static_cast<std::size_t>(i * shape.n + j)] = active::dot(std::span<const Block>(w.data() + static_cast<std::size_t>(j) * wb, wb), act);
            }
        }
    }
};

struct Path {
    std::string name;
    std::function<void()> run;
    double best = 1e30;
};

template <typename Block>
void bench(const char* format, const Shape& s, int rounds, std::mt19937& rng) {
    Operands<Block> op(s, rng);
    std::vector<Path> paths;
    if constexpr (kHasInterleavedGemmFor<Block>) paths.push_back({"interleaved", [&] { simd::gemm(op.gemm()); }});
#if defined(FORGE_INTERLEAVED_AVX2) && defined(FORGE_INTERLEAVED_GEMM)
    if constexpr (Block::kSize == kSuperBlock) paths.push_back({"avx2", [&] { simd::avx2::gemm(op.gemm()); }});
#endif
    paths.push_back({"dot", [&] { op.dots(); }});
    for (int round = 0; round < rounds; ++round) {
        for (Path& p : paths) {
            for (int call = 0; call < 3; ++call) {
                const double start = thread_seconds();
                p.run();
                p.best = std::min(p.best, thread_seconds() - start);
            }
        }
    }
    const double macs = static_cast<double>(s.n) * static_cast<double>(s.k) * static_cast<double>(s.m);
    std::printf("%-5s %5lld x %5lld  m %4lld", format, static_cast<long long>(s.n), static_cast<long long>(s.k),
                static_cast<long long>(s.m));
    for (const Path& p : paths) std::printf("  %s %7.2f", p.name.c_str(), macs / p.best * 1e-9);
    std::printf("  (GMAC/s)\n");
}

// ---- rows: an N-row product per weight byte against a 1-row one ----

constexpr std::int64_t kMaxRows = 9;
constexpr std::size_t kStreamBytes = std::size_t{384} << 20;  // well past this machine's L3
constexpr std::int64_t kSampleRows = 512;                     // rows quantized; the rest repeat them

// One matrix in the interleaved layout, `copies` times back to back, and kMaxRows activation rows.
template <typename Block>
struct Matrix {
    Operands<Block> sample;  // kSampleRows weight rows, kMaxRows activation rows
    std::int64_t n, copies;
    std::vector<CacheLine> packed;  // the sample's groups repeated to n rows, `copies` times
    std::vector<float> y;

    Matrix(std::int64_t rows, std::int64_t k, std::mt19937& rng)
        : sample(Shape{kSampleRows, k, kMaxRows}, rng), n(rows), y(static_cast<std::size_t>(kMaxRows * rows)) {
        const std::size_t sample_bytes = sample.packed.size() * sizeof(CacheLine);
        const std::size_t bytes = static_cast<std::size_t>(n / kInterleave) * group_bytes<Block>(sample.blocks());
        copies = static_cast<std::int64_t>(std::max<std::size_t>(1, kStreamBytes / bytes));
        const std::size_t total = static_cast<std::size_t>(copies) * bytes;
        packed.resize(total / sizeof(CacheLine));
        for (std::size_t at = 0; at < total; at += sample_bytes) {
            std::memcpy(packed.front().bytes + at, sample.packed.data(), std::min(sample_bytes, total - at));
        }
    }

    std::size_t bytes() const { return packed.size() * sizeof(CacheLine) / static_cast<std::size_t>(copies); }

    // The first `outputs` rows of copy `copy` times activation rows 0..rows-1.
    void product(std::int64_t rows, std::int64_t copy, std::int64_t outputs) {
        const std::int64_t blocks = sample.blocks();
        simd::gemm(InterleavedGemm<Block>{rows, outputs, blocks, sample.a.data(), sample.info.empty() ? nullptr : sample.info.data(),
                                          blocks, packed.front().bytes + static_cast<std::size_t>(copy) * bytes(), y.data(), n});
    }

    // Seconds per product of `count` products, over copies 0, 1, .. or (hot) copy 0 each time,
    // best of `rounds`.
    double seconds(std::int64_t rows, std::int64_t count, bool hot, std::int64_t outputs, int rounds) {
        double best = 1e30;
        for (int round = 0; round < rounds; ++round) {
            const double start = thread_seconds();
            for (std::int64_t c = 0; c < count; ++c) product(rows, hot ? 0 : c, outputs);
            best = std::min(best, (thread_seconds() - start) / static_cast<double>(count));
        }
        return best;
    }
};

template <typename Block>
void bench_rows(const char* format, std::int64_t n, std::int64_t k, int rounds, std::mt19937& rng, std::FILE* dump) {
    Matrix<Block> m(n, k, rng);
    if (dump) {
        for (std::int64_t rows = 1; rows <= kMaxRows; ++rows) {
            m.product(rows, 0, n);
            std::fwrite(m.y.data(), sizeof(float), static_cast<std::size_t>(rows * n), dump);
        }
        return;
    }
    for (const bool hot : {false, true}) {
        const char* hot_outputs = std::getenv("HOT");
        const std::int64_t outputs = hot ? std::min<std::int64_t>(n, hot_outputs ? std::max(16LL, std::atoll(hot_outputs)) : 256) : n;
        const double gb = static_cast<double>(m.bytes()) * 1e-9 * static_cast<double>(outputs) / static_cast<double>(n);
        const std::int64_t count = hot ? std::max<std::int64_t>(1, static_cast<std::int64_t>(0.128 / gb)) : m.copies;
        double one = 0;
        std::printf("%-5s %6lld x %4lld %-8s", format, static_cast<long long>(outputs), static_cast<long long>(k), hot ? "hot" : "streamed");
        for (std::int64_t rows = 1; rows <= 4; ++rows) {
            const double t = m.seconds(rows, count, hot, outputs, rounds);
            if (rows == 1) one = t;
            std::printf("  N=%lld %6.1f GB/s x%.2f", static_cast<long long>(rows), gb / t, t / one);
        }
        std::printf("\n");
        std::fflush(stdout);
    }
}

// The `rows` mode's shapes and formats; --dump FILE: the outputs instead of the timings.
int main_rows(int argc, char** argv) {
    int rounds = 5;
    std::FILE* dump = nullptr;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
            dump = std::fopen(argv[++i], "wb");
            if (!dump) {
                std::fprintf(stderr, "bench_quant_k: cannot write %s\n", argv[i]);
                return 1;
            }
        } else {
            rounds = std::max(1, std::atoi(argv[i]));
        }
    }
    if (!dump) {
        std::printf("backend %s, %s, one thread's CPU time, best of %d rounds\n", std::string(kBackendName).c_str(),
                    std::string(instruction_set()).c_str(), rounds);
    }
    std::mt19937 rng(1);
    if constexpr (kHasInterleavedGemmFor<BlockQ6_K>) bench_rows<BlockQ6_K>("Q6_K", 151936, 1024, rounds, rng, dump);
    for (const auto& [n, k] : {std::pair<std::int64_t, std::int64_t>{2048, 1024}, {768, 2048}}) {
        if constexpr (kHasInterleavedGemmFor<BlockQ4_K>) bench_rows<BlockQ4_K>("Q4_K", n, k, rounds, rng, dump);
        if constexpr (kHasInterleavedGemmFor<BlockQ8_0>) bench_rows<BlockQ8_0>("Q8_0", n, k, rounds, rng, dump);
        if constexpr (kHasInterleavedGemmFor<BlockQ4_0>) bench_rows<BlockQ4_0>("Q4_0", n, k, rounds, rng, dump);
    }
    if (dump) std::fclose(dump);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "rows") == 0) return main_rows(argc, argv);
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    std::printf("backend %s, %s, one thread, best of %d rounds\n", std::string(kBackendName).c_str(),
                std::string(instruction_set()).c_str(), rounds);
    std::mt19937 rng(1);
    for (const std::int64_t m : {128, 1}) {
        for (const Shape shape : {Shape{3072, 1024, m}, Shape{1024, 3072, m}}) {
            bench<BlockQ4_K>("Q4_K", shape, rounds, rng);
            bench<BlockQ5_K>("Q5_K", shape, rounds, rng);
            bench<BlockQ6_K>("Q6_K", shape, rounds, rng);
            bench<BlockQ4_0>("Q4_0", shape, rounds, rng);
        }
    }
    return 0;
}
