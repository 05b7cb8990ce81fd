#include "core/distributed/world.h"

#include "core/distributed/single_process.h"
#include "core/distributed_config.h"  // FORGE_WITH_MPI, written by core/meson.build
#include "core/error.h"

#if FORGE_WITH_MPI
#include "core/distributed/mpi_communicator.h"
#endif

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

namespace forge::distributed {

bool launched_by_mpi() {
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

int launcher_world_size() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
        if (const char* value = std::getenv(name)) {
            try {
                return std::max(1, std::stoi(value));
            } catch (const std::exception&) {
                fail("environment variable {}='{}' is not a process count", name, value);
            }
        }
    }
    return 1;
}

int threads_per_local_rank() {
    if (const char* set = std::getenv("FORGE_THREADS"); set != nullptr && *set != '\0') return 0;
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
        const char* value = std::getenv(name);
        if (value == nullptr) continue;
        const int local = std::atoi(value);
        if (local <= 1) return 0;
        const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        return std::max(1, cores / local);
    }
    return 0;
}

bool built_with_mpi() { return FORGE_WITH_MPI != 0; }

std::unique_ptr<Communicator> connect_world() {
    const int launched = launcher_world_size();
#if FORGE_WITH_MPI
    // Under a launcher even one rank goes through MPI, so `mpirun -np 1` tests the MPI path.
    if (launched_by_mpi()) return make_mpi_communicator();
#endif
    check(launched == 1,
          "a launcher started {} processes, but this forge was built without MPI (configure with "
          "-Dmpi=enabled after installing libopenmpi-dev); each process would train alone",
          launched);
    return std::make_unique<SingleProcess>();
}

}  // namespace forge::distributed
