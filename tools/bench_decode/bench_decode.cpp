// Decode's matrix work alone, as a fraction of the read bandwidth: one token of a
// Qwen3-0.6B-shaped model (28 layers of q, k, v, o, gate, up, down and the 151936-row head)
// through infer::linear / linear_shared_input as the model's forward calls them (q, k, v share
// one pass, gate and up another), weights interleaved as the loader prepares them. Rounds
// outside, formats inside (every other round reversed), each token beside a run of the
// streaming read probe of `forge bench ops`, so every format sees the same load; it prints
// weight bytes per token / time against the probe (docs/LLM.md, "Speed": the issue's "decode
// >= 70% of the read bound"). --cpu-time: one thread's CPU seconds instead of wall time (on a
// machine shared with other work, how fast the kernel streams while it runs; with more
// threads the pool's waiting workers spin and count too). The weights are random blocks with
// a small scale: the speed does not depend on the values. Only formats the build interleaves.
//
// usage: bench_decode [--threads N] [--rounds R] [--layers L] [--no-head] [--cpu-time] FORMAT...
//        (Q4_0 Q8_0 Q4_K Q5_K Q6_K)
#include "app/bench_stats.h"
#include "app/machine_info.h"
#include "core/infer/interleaved_weights.h"
#include "core/infer/linear.h"
#include "core/quant/block_types.h"
#include "core/thread_pool.h"
#include "kernels/half.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace forge;

constexpr std::int64_t kHidden = 1024, kQ = 2048, kKv = 1024, kFfn = 3072, kVocab = 151936;

// Random bytes (xorshift: a gigabyte of mt19937 output takes seconds), then every block's
// scales set small so no value is inf or NaN.
Tensor random_blocks(std::int64_t n, std::int64_t k, DType dtype, std::uint64_t seed) {
    Tensor w = Tensor::empty({n, k}, dtype);
    auto* words = reinterpret_cast<std::uint64_t*>(w.raw_data());
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (std::size_t i = 0; i < w.nbytes() / 8; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        words[i] = x;
    }
    quant::visit_block_type(dtype, [&](auto tag) {
        using Block = typename decltype(tag)::type;
        for (auto& b : std::span<Block>(reinterpret_cast<Block*>(w.raw_data()), w.nbytes() / sizeof(Block))) {
            if constexpr (requires { b.d = kernels::f16_bits{}; }) b.d = kernels::f32_to_f16(0.002f);
            if constexpr (requires { b.dmin; }) b.dmin = kernels::f32_to_f16(0.001f);
        }
    });
    return w;
}

infer::Linear layer(std::int64_t n, std::int64_t k, DType dtype, std::uint64_t seed) {
    Tensor w = random_blocks(n, k, dtype, seed);
    auto packed = infer::InterleavedWeights::from(w, false);
    return {std::move(w), Tensor{}, std::move(packed)};
}

struct LayerWeights {
    infer::Linear q, k, v, o, gate, up, down;
};

struct Model {
    std::vector<LayerWeights> layers;
    infer::Linear head;
    bool with_head = true;

    double bytes() const {
        double total = with_head ? static_cast<double>(head.weight.nbytes()) : 0.0;
        for (const auto& l : layers) {
            for (const auto* m : {&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down}) total += static_cast<double>(m->weight.nbytes());
        }
        return total;
    }
};

Model make_model(DType dtype, std::int64_t layers, bool with_head) {
    Model m;
    m.with_head = with_head;
    std::uint64_t seed = 1;
    for (std::int64_t i = 0; i < layers; ++i) {
        m.layers.push_back({layer(kQ, kHidden, dtype, seed++), layer(kKv, kHidden, dtype, seed++), layer(kKv, kHidden, dtype, seed++),
                            layer(kHidden, kQ, dtype, seed++), layer(kFfn, kHidden, dtype, seed++), layer(kFfn, kHidden, dtype, seed++),
                            layer(kHidden, kFfn, dtype, seed++)});
    }
    if (with_head) m.head = layer(kVocab, kHidden, dtype, seed++);
    return m;
}

// One decode step's matrix products, in the model's order.
void token(const Model& m, std::vector<float>& x, std::vector<float>& y, infer::ActivationScratch& scratch) {
    std::vector<float> q(kQ), k(kKv), v(kKv), gate(kFfn), up(kFfn);
    for (const auto& l : m.layers) {
        const infer::LinearOutput qkv[] = {{&l.q, q}, {&l.k, k}, {&l.v, v}};
        infer::linear_shared_input(qkv, x, 1, scratch);
        infer::linear(l.o, q, 1, y, scratch);
        const infer::LinearOutput gate_up[] = {{&l.gate, gate}, {&l.up, up}};
        infer::linear_shared_input(gate_up, x, 1, scratch);
        infer::linear(l.down, up, 1, y, scratch);
    }
    if (m.with_head) infer::linear(m.head, x, 1, std::span(y), scratch);
}

// Wall seconds, or (cpu) the process's CPU seconds.
double seconds_of(bool cpu, auto&& body) {
    const auto now = [cpu] {
        if (cpu) {
            timespec t{};
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
            return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
        }
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
    const double start = now();
    body();
    return now() - start;
}

}  // namespace

// One format's rates per round: decode GB/s (weight bytes / time) and the read probe's.
struct Series {
    std::string name;
    Model model;
    std::vector<double> decode, read;
};

int main(int argc, char** argv) {
    int threads = 2, rounds = 5;
    std::int64_t layers = 28;
    bool with_head = true, cpu = false;
    std::vector<std::string> formats;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
        else if (arg == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
        else if (arg == "--no-head") with_head = false;
        else if (arg == "--layers" && i + 1 < argc) layers = std::atoi(argv[++i]);
        else if (arg == "--cpu-time") cpu = true;
        else formats.push_back(arg);
    }
    if (formats.empty() || threads < 1 || rounds < 1 || layers < 0) {
        fmt::print(stderr, "usage: bench_decode [--threads N] [--rounds R] [--layers L] [--no-head] [--cpu-time] FORMAT... "
                           "(Q4_0 Q8_0 Q4_K Q5_K Q6_K)\n");
        return 2;
    }
    ThreadPool::set_global_threads(threads);
    std::vector<Series> series;
    for (const auto& name : formats) {
        const auto dtype = dtype_from_name(name);
        if (!dtype || !infer::InterleavedWeights::from(random_blocks(16, 256, *dtype, 0), false)) {
            fmt::print(stderr, "bench_decode: '{}' is not a format this build interleaves\n", name);
            return 2;
        }
        series.push_back({name, make_model(*dtype, layers, with_head), {}, {}});
    }
    infer::ActivationScratch scratch(1, std::max(kFfn, kHidden));
    std::vector<float> x(kFfn, 0.5f), y(kVocab);
    const std::size_t probe_bytes = app::memory_bench_bytes();
    constexpr int kTokens = 4;
    // Rounds outside, formats inside: a burst of load from elsewhere hits every format alike.
    for (int r = 0; r < rounds; ++r) {
        // Every other round in reverse order: whichever runs right after another series of
        // the same weights finds them warmer in the cache.
        for (std::size_t i = 0; i < series.size(); ++i) {
            auto& s = series[r % 2 == 0 ? i : series.size() - 1 - i];
            if (!cpu) s.read.push_back(app::measure_read_bandwidth(probe_bytes, 1)[0]);
            token(s.model, x, y, scratch);
            const double seconds = seconds_of(cpu, [&] {
                for (int t = 0; t < kTokens; ++t) token(s.model, x, y, scratch);
            });
            s.decode.push_back(s.model.bytes() * kTokens / seconds);
        }
    }
    for (const auto& s : series) {
        const app::bench::Summary decode = app::bench::summarize(s.decode);
        fmt::print("{:<5} {} threads, {:.1f} MB/token{}: decode {:.2f} GB/s{} (rounds {:.2f}-{:.2f}), {:.1f} tok/s", s.name, threads,
                   s.model.bytes() / 1e6, with_head ? "" : " (no head)", decode.median / 1e9, cpu ? " of CPU time" : "",
                   decode.min / 1e9, decode.max / 1e9, decode.median / s.model.bytes());
        if (!cpu) {
            std::vector<double> fraction;
            for (std::size_t i = 0; i < s.decode.size(); ++i) fraction.push_back(s.decode[i] / s.read[i]);
            const app::bench::Summary share = app::bench::summarize(fraction);
            fmt::print(", read probe {:.1f} GB/s, decode/read {:.0f}% (rounds {:.0f}-{:.0f}%)",
                       app::bench::summarize(s.read).median / 1e9, 100 * share.median, 100 * share.min, 100 * share.max);
        }
        fmt::print("\n");
    }
    return 0;
}
