// The processes of one data-parallel job, and the few collective operations training needs.
//
// forge talks to other processes only through this interface. Two implementations:
// single_process.h (one process, nothing to exchange) and mpi_communicator.cpp (MPI, compiled
// only when meson finds an MPI library; no other file of forge includes mpi.h). world.h picks
// one at start-up.
//
// Every collective is called by every rank, in the same order, with buffers of the same size.
#pragma once

#include <span>
#include <string>

namespace forge::distributed {

class Communicator {
public:
    Communicator() = default;
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;
    virtual ~Communicator() = default;

    virtual int rank() const = 0;  // 0 .. size() - 1
    virtual int size() const = 0;
    bool is_root() const { return rank() == 0; }
    // One line for logs: the implementation and this process's place in the job.
    virtual std::string describe() const = 0;

    // Every rank's `data` becomes the element-wise sum over the ranks, added in rank order:
    // ((x_0 + x_1) + x_2) + ... + x_{P-1}. A fixed order makes the result the same bits on
    // every rank and in every run, and equal to a single process that accumulates the same
    // P terms one after the other.
    virtual void sum_in_rank_order(std::span<float> data) = 0;
    virtual void sum_in_rank_order(std::span<double> data) = 0;

    // Ends every process of the job with exit code `code` (after a failure on this rank, so
    // that the others do not wait forever at the next collective).
    [[noreturn]] virtual void abort_job(int code) = 0;
};

}  // namespace forge::distributed
