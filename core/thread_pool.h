// A pool of persistent worker threads and a deterministic parallel-for.
//
// parallel_for splits [0, n) into chunks of a fixed `grain`: the chunk boundaries depend on
// n and grain only, never on how many threads there are. Each chunk is computed by exactly
// one thread, so an op that writes disjoint outputs per chunk (and combines per-chunk partial
// results in chunk order) gives bitwise-identical results for any thread count.
//
// The calling thread works too. A parallel_for issued from inside a worker runs inline on
// that worker (no nested fan-out), which keeps ops safe to call from parallel autograd nodes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace forge {

// A non-owning reference to a callable: no allocation, unlike std::function.
template <typename Signature> class FunctionRef;
template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
public:
    template <typename F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef>)
    FunctionRef(F&& f)  // NOLINT: implicit, like std::function
        : object_(const_cast<void*>(static_cast<const void*>(&f))),
          call_([](void* object, Args... args) -> R {
              return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
          }) {}
    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
    void* object_;
    R (*call_)(void*, Args...);
};

class ThreadPool {
public:
    // Every pool is bounded: a thread count from a flag or a request must not be able to
    // spawn threads until the machine stalls.
    static constexpr int kMaxThreads = 1024;

    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }  // workers + caller

    // Call body(begin, end) for each chunk [k*grain, min(n, (k+1)*grain)) of [0, n).
    void parallel_for(std::int64_t n, std::int64_t grain,
                      FunctionRef<void(std::int64_t, std::int64_t)> body);
    // Call task(i) for each i in [0, count), spread over the threads. If tasks throw, the
    // remaining tasks still run and the first exception is rethrown here afterwards.
    void run(std::int64_t count, FunctionRef<void(std::int64_t)> task);
    // run() for tasks that read memory in index order, as a decode step's weight strips do:
    // each thread owns one contiguous run of the tasks and goes through it front to back, so
    // its reads are one long stream that the prefetchers follow across task boundaries (with
    // run()'s shared counter, neighbouring tasks alternate between threads and every task
    // starts a cold stream: two threads decoded Q4_K at 60% of the read bandwidth that way,
    // 76% in runs). A thread done with its own run takes the others' remaining tasks from
    // their back ends, so a descheduled thread delays nothing. Which thread runs a task is
    // all that differs from run().
    void run_in_runs(std::int64_t count, FunctionRef<void(std::int64_t)> task);

    // The process-wide pool used by ops. Sized by set_global_threads(), else by
    // FORGE_THREADS, else by the number of hardware threads.
    static ThreadPool& global();
    static void set_global_threads(int threads);
    static int default_threads();

private:
    struct Job {
        FunctionRef<void(std::int64_t)>* task = nullptr;
        std::int64_t count = 0;
        std::atomic<std::int64_t> next{0};
        std::atomic<std::int64_t> finished{0};
        // Workers holding a pointer to this job: raised under mutex_, lowered without it (the
        // submitter polls it while it spins), so an atomic.
        std::atomic<int> attached_workers{0};
        std::exception_ptr error;  // the first exception a task threw; guarded by mutex_
        bool in_runs = false;      // run_in_runs: tasks come from runs_, not from `next`
    };

    // One thread's run of tasks [front, back) in one word (front low, back high), so its owner
    // taking the front and another thread taking the back agree through one compare-exchange.
    // A cache line each: the owners update them on every task.
    struct alignas(64) Run {
        std::atomic<std::uint64_t> bounds{0};
    };

    // run() and run_in_runs(): small jobs inline, else one published job.
    void run_job(std::int64_t count, FunctionRef<void(std::int64_t)>& task, bool in_runs);
    void submit(Job& job);
    void worker_loop(int self);
    void work_on(Job& job, int self);
    // The next task of `job` for thread `self`, or -1 when none is left.
    std::int64_t next_task(Job& job, int self);
    void run_task(Job& job, std::int64_t i);

    std::vector<std::thread> workers_;
    std::unique_ptr<Run[]> runs_;  // one per thread (the submitter is 0), for run_in_runs
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    Job* job_ = nullptr;               // guarded by mutex_ for publication
    std::uint64_t generation_ = 0;     // bumped for each job, guarded by mutex_
    std::atomic<std::uint64_t> published_{0};  // lock-free mirror of generation_ for spinning
    std::mutex submit_mutex_;          // one job at a time from outside threads
    bool stopping_ = false;
};

}  // namespace forge
