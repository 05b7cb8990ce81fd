// Running a training command as one rank of a data-parallel job (`mpirun -np P forge train
// gpt|sft ...`), shared by the commands that train on core/distributed/.
#pragma once

#include "core/distributed/world.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <functional>

namespace forge::app {

// Runs `job` on this process's world. A failure on one rank of a job ends the whole job at
// once (the other ranks would otherwise wait at the next gradient sum forever), with the error
// and the failing rank on stderr; alone, errors propagate to main() as usual.
inline int run_data_parallel(const std::function<int(distributed::Communicator&)>& job) {
    const auto world = distributed::connect_world();
    if (world->size() == 1) return job(*world);
    try {
        return job(*world);
    } catch (const std::exception& e) {
        fmt::print(stderr, "forge: error on rank {} of {}: {}\n", world->rank(), world->size(), e.what());
        std::fflush(stderr);
        world->abort_job(1);
    }
    return 1;  // not reached: abort_job ends the process
}

}  // namespace forge::app
