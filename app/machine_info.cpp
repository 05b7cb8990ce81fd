#include "app/machine_info.h"

#include "app/timing.h"
#include "core/buffer_pool.h"
#include "core/storage.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace forge::app {
namespace {

std::string cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
        }
    }
    return "unknown";
}

// Independent accumulator chains: more than FMA latency x FMA ports, so the loop is bound by
// throughput alone. Returns a value that depends on every chain, so none is optimized away.
constexpr int kChains = 12;

#if defined(__AVX512F__)
// Spelled out: g++ 12 warns falsely inside _mm512_reduce_add_ps.
float horizontal_sum(__m512 v) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, v);
    float total = 0;
    for (float lane : lanes) total += lane;
    return total;
}
#endif

float fma_chains(std::int64_t iterations, float seed) {
#if defined(__AVX512F__)
    const __m512 scale = _mm512_set1_ps(0.999f), shift = _mm512_set1_ps(seed);
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(static_cast<float>(c));
    for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
        for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], scale, shift);
    }
    float total = 0;
    for (int c = 0; c < kChains; ++c) total += horizontal_sum(acc[c]);
#elif defined(__AVX2__) && defined(__FMA__)
    const __m256 scale = _mm256_set1_ps(0.999f), shift = _mm256_set1_ps(seed);
    __m256 acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(static_cast<float>(c));
    for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
        for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], scale, shift);
    }
    float total = 0;
    alignas(32) float lanes_out[8];
    for (int c = 0; c < kChains; ++c) {
        _mm256_store_ps(lanes_out, acc[c]);
        for (float v : lanes_out) total += v;
    }
#else
    float acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = static_cast<float>(c);
    for (std::int64_t i = 0; i < iterations; ++i) {
        for (int c = 0; c < kChains; ++c) acc[c] = std::fma(acc[c], 0.999f, seed);
    }
    float total = 0;
    for (float v : acc) total += v;
#endif
    return total;
}

constexpr int fma_lanes() {
#if defined(__AVX512F__)
    return 16;
#elif defined(__AVX2__) && defined(__FMA__)
    return 8;
#else
    return 1;
#endif
}

// Sum of a span with several vector accumulators: a pure streaming read.
float read_sum(const float* data, std::size_t n) {
    std::size_t i = 0;
    float total = 0;
#if defined(__AVX512F__)
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (; i + 64 <= n; i += 64) {
        for (int v = 0; v < 4; ++v) acc[v] = _mm512_add_ps(acc[v], _mm512_load_ps(data + i + 16 * v));
    }
    total = horizontal_sum(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
#elif defined(__AVX2__)
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (; i + 32 <= n; i += 32) {
        for (int v = 0; v < 4; ++v) acc[v] = _mm256_add_ps(acc[v], _mm256_load_ps(data + i + 8 * v));
    }
    alignas(32) float lanes_out[8];
    _mm256_store_ps(lanes_out, _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
    for (float v : lanes_out) total += v;
#endif
    for (; i < n; ++i) total += data[i];
    return total;
}

double read_bandwidth_once(std::size_t bytes) {
    const std::size_t n = bytes / sizeof(float);
    const auto storage = Storage::allocate(n * sizeof(float));
    const auto* data = reinterpret_cast<const float*>(storage->data());
    constexpr std::int64_t kChunk = std::int64_t{1} << 22;  // 16 MiB of floats per task
    auto& pool = ThreadPool::global();
    // Touch every page first (in parallel, so the pages spread like the reads will).
    pool.parallel_for(static_cast<std::int64_t>(n), kChunk, [&](std::int64_t begin, std::int64_t end) {
        std::memset(storage->data() + begin * 4, 1, static_cast<std::size_t>(end - begin) * 4);
    });
    std::vector<float> sums(static_cast<std::size_t>((static_cast<std::int64_t>(n) + kChunk - 1) / kChunk));
    const auto run = [&] {
        pool.parallel_for(static_cast<std::int64_t>(n), kChunk, [&](std::int64_t begin, std::int64_t end) {
            sums[static_cast<std::size_t>(begin / kChunk)] = read_sum(data + begin, static_cast<std::size_t>(end - begin));
        });
    };
    return static_cast<double>(n * sizeof(float)) / median_seconds(run, 5);
}

}  // namespace

Machine describe_machine() {
    return {cpu_model(), std::string(kernels::instruction_set()), std::string(kernels::kBackendName),
            ThreadPool::global().size()};
}

double measure_peak_flops() {
    // Many equal tasks, so every thread stays busy until the end whatever the scheduling.
    auto& pool = ThreadPool::global();
    const std::int64_t tasks = 8 * pool.size();
    constexpr std::int64_t kIterations = 2'000'000;
    std::vector<float> sinks(static_cast<std::size_t>(tasks));
    const auto run = [&] {
        pool.run(tasks, [&](std::int64_t t) { sinks[static_cast<std::size_t>(t)] = fma_chains(kIterations, 1e-3f); });
    };
    const double seconds = median_seconds(run, 5);
    const double flops = 2.0 * kChains * fma_lanes() * static_cast<double>(kIterations * tasks);
    return flops / seconds;
}

double measure_read_bandwidth(std::size_t bytes) {
    const double rate = read_bandwidth_once(bytes);
    // Hand the gigabyte back to the system: cached in the pool it would crowd out the buffers
    // of the benchmarks that follow.
    BufferPool::global().trim();
    return rate;
}

}  // namespace forge::app
