// MPI_COMM_WORLD behind the Communicator interface: the only file of forge that includes mpi.h.
#include "core/distributed/mpi_communicator.h"

#include "core/error.h"

#define OMPI_SKIP_MPICXX 1  // the C API only (the deprecated C++ bindings do not compile -Wextra clean)
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <unistd.h>
#include <vector>

namespace forge::distributed {
namespace {

// Elements per message of the chained sum: large enough to run at memory speed, small enough
// that the next rank starts adding while this one still sends.
constexpr std::size_t kChunk = std::size_t{1} << 18;

void check_mpi(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    fail("MPI {} failed: {}", what, std::string(text, static_cast<std::size_t>(length)));
}

// Waits for a request without spinning a core at 100%: Open MPI's blocking calls busy-poll,
// which on a machine with as many ranks as cores would steal the CPU from the backward pass
// that the gradient thread overlaps with. Polls for ~50 us, then sleeps between polls.
void wait_politely(MPI_Request& request, const char* what) {
    const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    for (;;) {
        int done = 0;
        check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
        if (done) return;
        if (std::chrono::steady_clock::now() > spin_until) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
}

// A rank killed by mpirun after another rank failed says so instead of vanishing silently.
// (write() is async-signal-safe; the checkpoint on disk is whole because writes are atomic.)
extern "C" void on_terminate(int) {
    static const char message[] =
        "forge: stopped by the MPI launcher (another rank of this job failed or was killed); "
        "the last checkpoint is intact, continue with --resume\n";
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, message, sizeof(message) - 1);
    std::_Exit(143);
}

template <typename T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <>
MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

class MpiCommunicator final : public Communicator {
public:
    MpiCommunicator() {
        int provided = 0;
        // SERIALIZED: the gradient thread and the training thread call MPI, never at once.
        check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
        check(provided >= MPI_THREAD_SERIALIZED, "this MPI library supports only thread level {} (forge needs "
              "MPI_THREAD_SERIALIZED)", provided);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
        std::signal(SIGTERM, on_terminate);
    }
    ~MpiCommunicator() override { MPI_Finalize(); }

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    std::string describe() const override {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int length = 0;
        MPI_Get_library_version(version, &length);
        std::string library(version, static_cast<std::size_t>(length));
        library = library.substr(0, library.find_first_of(",\n"));
        return fmt::format("MPI ({}), rank {} of {}", library, rank_, size_);
    }

    void sum_in_rank_order(std::span<float> data) override { chained_sum(data); }
    void sum_in_rank_order(std::span<double> data) override { chained_sum(data); }

    [[noreturn]] void abort_job(int code) override {
        MPI_Abort(MPI_COMM_WORLD, code);
        std::_Exit(code);  // MPI_Abort does not return; this is for the compiler
    }

private:
    // The sum travels along the chain 0 -> 1 -> ... -> P-1 (rank r adds its own terms to what
    // rank r-1 sent: the rank order of the interface), chunk by chunk so that all ranks work
    // at once, then rank P-1 broadcasts the total. Each rank sends and receives about twice
    // the buffer, like a ring all-reduce; the chain adds P-1 chunk times of latency. (MPI's own
    // MPI_Allreduce may add in any order, which would make results depend on P's tree shape.)
    template <typename T>
    void chained_sum(std::span<T> data) {
        if (size_ == 1 || data.empty()) return;
        const MPI_Datatype type = mpi_type<T>();
        std::vector<T> incoming(std::min(kChunk, data.size()));
        std::vector<MPI_Request> sends;
        for (std::size_t offset = 0; offset < data.size(); offset += kChunk) {
            const std::size_t n = std::min(kChunk, data.size() - offset);
            const int count = static_cast<int>(n);
            T* mine = data.data() + offset;
            if (rank_ > 0) {
                MPI_Request request;
                check_mpi(MPI_Irecv(incoming.data(), count, type, rank_ - 1, 0, MPI_COMM_WORLD, &request), "MPI_Irecv");
                wait_politely(request, "receiving a partial sum");
                for (std::size_t i = 0; i < n; ++i) mine[i] = incoming[i] + mine[i];
            }
            if (rank_ < size_ - 1) {
                sends.emplace_back();
                check_mpi(MPI_Isend(mine, count, type, rank_ + 1, 0, MPI_COMM_WORLD, &sends.back()), "MPI_Isend");
            }
        }
        for (auto& request : sends) wait_politely(request, "sending a partial sum");
        // All chunks at once, so the broadcast tree pipelines them instead of one chunk's
        // log2(P) hops after another's.
        std::vector<MPI_Request> broadcasts;
        for (std::size_t offset = 0; offset < data.size(); offset += kChunk) {
            const int count = static_cast<int>(std::min(kChunk, data.size() - offset));
            broadcasts.emplace_back();
            check_mpi(MPI_Ibcast(data.data() + offset, count, type, size_ - 1, MPI_COMM_WORLD, &broadcasts.back()),
                      "MPI_Ibcast");
        }
        for (auto& request : broadcasts) wait_politely(request, "broadcasting the sum");
    }

    int rank_ = 0;
    int size_ = 1;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator() { return std::make_unique<MpiCommunicator>(); }

}  // namespace forge::distributed
