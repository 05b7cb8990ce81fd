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
            std::size_t group_bytes = 0;
            if constexpr (Block::kSize == kSuperBlock) group_bytes = interleaved_k_group_bytes<Block>(blocks());
            else group_bytes = interleaved_group_bytes<Block>(blocks());
            packed.resize(static_cast<std::size_t>((s.n + kInterleave - 1) / kInterleave) * group_bytes / sizeof(CacheLine));
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

}  // namespace

int main(int argc, char** argv) {
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
