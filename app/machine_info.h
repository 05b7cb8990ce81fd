// What the benchmarks run on: the CPU's name, the instruction set the build targets, the
// thread and core counts, memory, the last-level cache and the kernel, and three measured
// ceilings to compare results against: peak f32 FMA throughput, streaming read bandwidth and
// memcpy bandwidth (the check on the read probe), each over every thread of the pool.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace forge::app {

struct Machine {
    std::string cpu;           // "model name" from /proc/cpuinfo
    std::string instruction_set;
    std::string backend;
    int threads = 0;
    int cores = 0;                   // online CPUs
    std::uint64_t memory_bytes = 0;  // physical memory
    std::uint64_t llc_bytes = 0;     // the largest cache in /sys (0 when unknown)
    std::string kernel;              // uname -srm
};

Machine describe_machine();

// The 1, 5 and 15 minute load averages.
std::array<double, 3> load_average();

// The fraction of all CPUs' time spent busy over the next `seconds` (Linux /proc/stat; -1 when
// unknown). Measured while forge itself waits, so it is what other processes use right now,
// which the load average (a trailing mean over a minute) shows only late.
double cpu_busy_fraction(double seconds);

// How many bytes a memory-bound benchmark touches per run: four times the last-level cache,
// so that it measures memory and not the cache, kept within [64 MiB, 1 GiB] so the benchmarks
// fit beside other work. An op that reads one buffer and writes another uses half of it each.
std::size_t memory_bench_bytes();

// FLOP/s of independent register-resident FMA chains on every thread (an FMA counts as 2),
// one value per repetition.
std::vector<double> measure_peak_flops(int reps = 5);

// Bytes/s of a streaming read-and-sum over `bytes` of memory, split across every thread; one
// value per repetition.
std::vector<double> measure_read_bandwidth(std::size_t bytes, int reps = 5);

// Bytes/s (read + written) of std::memcpy between two buffers of bytes / 2, split across every
// thread: a plain loop that the read probe should match or beat.
std::vector<double> measure_copy_bandwidth(std::size_t bytes, int reps = 5);

}  // namespace forge::app
