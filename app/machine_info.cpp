#include "app/machine_info.h"

#include "app/timing.h"
#include "core/buffer_pool.h"
#include "core/storage.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>
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

// "266240K" or "4M" (sysfs cache sizes) in bytes.
std::uint64_t parse_cache_size(const std::string& text) {
    char* end = nullptr;
    const std::uint64_t value = std::strtoull(text.c_str(), &end, 10);
    const char unit = end != nullptr ? *end : '\0';
    return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : unit == 'G' ? value << 30 : value;
}

std::uint64_t last_level_cache_bytes() {
    std::uint64_t largest = 0;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/cpu/cpu0/cache", error)) {
        std::ifstream size_file(entry.path() / "size");
        std::string size;
        if (size_file >> size) largest = std::max(largest, parse_cache_size(size));
    }
    return largest;
}

std::string kernel_name() {
    utsname name{};
    if (uname(&name) != 0) return "unknown";
    return std::string(name.sysname) + " " + name.release + " " + name.machine;
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

std::vector<double> read_bandwidth_reps(std::size_t bytes, int reps) {
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
    std::vector<double> rates;
    for (double seconds : time_reps(run, reps)) rates.push_back(static_cast<double>(n * sizeof(float)) / seconds);
    return rates;
}

}  // namespace

Machine describe_machine() {
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const auto memory = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    return {cpu_model(), std::string(kernels::instruction_set()), std::string(kernels::kBackendName),
            ThreadPool::global().size(), static_cast<int>(cores), memory, last_level_cache_bytes(), kernel_name()};
}

std::array<double, 3> load_average() {
    std::array<double, 3> load{};
    if (getloadavg(load.data(), 3) != 3) load = {-1, -1, -1};
    return load;
}

double cpu_busy_fraction(double seconds) {
    // The first line of /proc/stat: "cpu  user nice system idle iowait irq softirq steal ...",
    // in clock ticks since boot; idle and iowait are the idle ones.
    const auto ticks = [] {
        std::ifstream stat("/proc/stat");
        std::string cpu;
        std::array<std::uint64_t, 8> t{};
        stat >> cpu;
        for (auto& value : t) stat >> value;
        const std::uint64_t idle = t[3] + t[4];
        std::uint64_t total = 0;
        for (const auto value : t) total += value;
        return std::pair{stat ? total - idle : 0, stat ? total : 0};
    };
    const auto [busy_before, total_before] = ticks();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const auto [busy_after, total_after] = ticks();
    if (total_after <= total_before) return -1;
    return static_cast<double>(busy_after - busy_before) / static_cast<double>(total_after - total_before);
}

std::size_t memory_bench_bytes() {
    constexpr std::size_t kMin = std::size_t{64} << 20, kMax = std::size_t{1} << 30;
    return std::clamp(static_cast<std::size_t>(4 * last_level_cache_bytes()), kMin, kMax);
}

std::vector<double> measure_peak_flops(int reps) {
    // Many equal tasks, so every thread stays busy until the end whatever the scheduling.
    auto& pool = ThreadPool::global();
    const std::int64_t tasks = 8 * pool.size();
    constexpr std::int64_t kIterations = 2'000'000;
    std::vector<float> sinks(static_cast<std::size_t>(tasks));
    const auto run = [&] {
        pool.run(tasks, [&](std::int64_t t) { sinks[static_cast<std::size_t>(t)] = fma_chains(kIterations, 1e-3f); });
    };
    const double flops = 2.0 * kChains * fma_lanes() * static_cast<double>(kIterations * tasks);
    std::vector<double> rates;
    for (double seconds : time_reps(run, reps)) rates.push_back(flops / seconds);
    return rates;
}

std::vector<double> measure_read_bandwidth(std::size_t bytes, int reps) {
    auto rates = read_bandwidth_reps(bytes, reps);
    // Hand the gigabyte back to the system: cached in the pool it would crowd out the buffers
    // of the benchmarks that follow.
    BufferPool::global().trim();
    return rates;
}

std::vector<double> measure_copy_bandwidth(std::size_t bytes, int reps) {
    const std::size_t half = bytes / 2;
    std::vector<double> rates;
    {
        const auto source = Storage::allocate(half), target = Storage::allocate(half);
        constexpr std::int64_t kChunk = std::int64_t{16} << 20;  // bytes per task
        auto& pool = ThreadPool::global();
        const auto copy = [&] {
            pool.parallel_for(static_cast<std::int64_t>(half), kChunk, [&](std::int64_t begin, std::int64_t end) {
                std::memcpy(target->data() + begin, source->data() + begin, static_cast<std::size_t>(end - begin));
            });
        };
        std::memset(source->data(), 1, half);
        for (double seconds : time_reps(copy, reps)) rates.push_back(2.0 * static_cast<double>(half) / seconds);
    }
    BufferPool::global().trim();
    return rates;
}

}  // namespace forge::app
