// The time of Communicator::sum_in_rank_order on this machine's ranks, alone (no training
// around it): what tools/bench_mpi_scaling.py reports as the gradient sum's own cost.
//
//   mpirun -np 2 build/tools/bench_allreduce ELEMENTS [REPEATS]
//
// Prints one JSON object on rank 0: elements, ranks, median_ms and the algorithm bandwidth
// (gradient bytes / median time).
#include "core/distributed/world.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    try {
        if (argc < 2) {
            std::fprintf(stderr, "usage: mpirun -np P bench_allreduce ELEMENTS [REPEATS]\n");
            return 2;
        }
        const auto elements = static_cast<std::size_t>(std::stoll(argv[1]));
        const int repeats = argc > 2 ? std::stoi(argv[2]) : 20;
        auto world = forge::distributed::connect_world();
        std::vector<float> data(elements, 1.0f);
        world->sum_in_rank_order(data);  // warm-up: connections, pages
        std::vector<double> ms;
        for (int r = 0; r < repeats; ++r) {
            std::fill(data.begin(), data.end(), 1.0f);
            const auto start = std::chrono::steady_clock::now();
            world->sum_in_rank_order(data);
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(ms.begin(), ms.end());
        const double median = ms[ms.size() / 2];
        if (data.front() != static_cast<float>(world->size())) {
            std::fprintf(stderr, "bench_allreduce: wrong sum %g on rank %d\n", data.front(), world->rank());
            return 1;
        }
        if (world->is_root()) {
            fmt::print("{{\"elements\": {}, \"ranks\": {}, \"median_ms\": {:.3f}, \"algorithm_gb_per_s\": {:.2f}}}\n",
                       elements, world->size(), median, 4.0 * static_cast<double>(elements) / median / 1e6);
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_allreduce: %s\n", e.what());
        return 1;
    }
}
