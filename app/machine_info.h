// What the benchmarks run on: the CPU's name, the instruction set the build targets, the
// thread count, and two measured ceilings to compare results against: peak f32 FMA
// throughput and streaming read bandwidth, both over every thread of the pool.
#pragma once

#include <string>

namespace forge::app {

struct Machine {
    std::string cpu;           // "model name" from /proc/cpuinfo
    std::string instruction_set;
    std::string backend;
    int threads = 0;
};

Machine describe_machine();

// FLOP/s of independent register-resident FMA chains on every thread (an FMA counts as 2).
double measure_peak_flops();

// Bytes/s of a streaming read-and-sum over `bytes` of memory (far larger than the caches),
// split across every thread.
double measure_read_bandwidth(std::size_t bytes = std::size_t{1} << 30);

}  // namespace forge::app
