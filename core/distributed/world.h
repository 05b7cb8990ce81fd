// The communicator of this process: MPI when an MPI launcher (mpirun, srun) started it and
// forge was built with MPI, a single process otherwise.
#pragma once

#include "core/distributed/communicator.h"

#include <memory>

namespace forge::distributed {

// Whether an MPI launcher started this process: the variables Open MPI's mpirun
// (OMPI_COMM_WORLD_SIZE), MPICH's Hydra (PMI_SIZE) and PMIx launchers such as srun (PMIX_RANK) set.
bool launched_by_mpi();
// How many processes the launcher says the job has (1 when none is seen).
int launcher_world_size();

// Threads for each of several ranks an MPI launcher started on this machine (its cores divided
// among them, at least 1), from OMPI_COMM_WORLD_LOCAL_SIZE or MPI_LOCALNRANKS (MPICH); 0 when
// there is no launcher, one local rank, or FORGE_THREADS is set (the caller's default stands).
int threads_per_local_rank();

// True when this forge was built with MPI (meson -Dmpi=auto found it, or -Dmpi=enabled).
bool built_with_mpi();

// The world of this process. Throws when a launcher started several processes but this
// forge was built without MPI (each would otherwise train alone and overwrite the others' files).
std::unique_ptr<Communicator> connect_world();

}  // namespace forge::distributed
