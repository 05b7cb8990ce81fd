// The MPI communicator (MPI_COMM_WORLD). Declared without mpi.h so that world.cpp can create
// it; defined in mpi_communicator.cpp, which meson compiles only when it finds MPI.
#pragma once

#include "core/distributed/communicator.h"

#include <memory>

namespace forge::distributed {

// Initializes MPI (finalized when the returned object is destroyed). Call once per process.
std::unique_ptr<Communicator> make_mpi_communicator();

}  // namespace forge::distributed
