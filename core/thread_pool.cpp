#include "core/thread_pool.h"

#include "core/error.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

namespace forge {
namespace {

// True while this thread runs a task of some pool (a worker, or a caller helping out):
// a parallel_for issued from inside a task then runs inline instead of re-entering a pool.
thread_local bool inside_pool_task = false;

class TaskScope {
public:
    TaskScope() : outer_(inside_pool_task) { inside_pool_task = true; }
    ~TaskScope() { inside_pool_task = outer_; }
    TaskScope(const TaskScope&) = delete;
    TaskScope& operator=(const TaskScope&) = delete;

private:
    bool outer_;
};

// How long an idle worker polls for new work before sleeping: long enough to catch the next
// op of a decode step (microseconds apart), short enough not to burn a core when idle.
constexpr int kSpinIterations = 20000;

std::unique_ptr<ThreadPool>& global_pool() {
    static std::unique_ptr<ThreadPool> pool;
    return pool;
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
    check(threads >= 1 && threads <= kMaxThreads, "thread count must be 1 to {}, got {}", kMaxThreads, threads);
    runs_ = std::make_unique<Run[]>(static_cast<std::size_t>(threads));
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        ++generation_;
        published_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& worker : workers_) worker.join();
}

namespace {

std::uint64_t pack_run(std::uint64_t front, std::uint64_t back) { return front | back << 32; }
std::uint64_t run_front(std::uint64_t bounds) { return bounds & 0xFFFFFFFFu; }
std::uint64_t run_back(std::uint64_t bounds) { return bounds >> 32; }

// Takes the front (own run) or the back (another's) task of a run; -1 when it is empty.
std::int64_t take(std::atomic<std::uint64_t>& bounds, bool front) {
    std::uint64_t seen = bounds.load(std::memory_order_relaxed);
    for (;;) {
        const std::uint64_t f = run_front(seen), b = run_back(seen);
        if (f >= b) return -1;
        const std::uint64_t taken = front ? pack_run(f + 1, b) : pack_run(f, b - 1);
        if (bounds.compare_exchange_weak(seen, taken, std::memory_order_relaxed)) return static_cast<std::int64_t>(front ? f : b - 1);
    }
}

}  // namespace

std::int64_t ThreadPool::next_task(Job& job, int self) {
    if (!job.in_runs) {
        const std::int64_t i = job.next.fetch_add(1, std::memory_order_relaxed);
        return i < job.count ? i : -1;
    }
    const int threads = size();
    if (const std::int64_t own = take(runs_[self].bounds, true); own >= 0) return own;
    for (int other = (self + 1) % threads; other != self; other = (other + 1) % threads) {
        if (const std::int64_t stolen = take(runs_[other].bounds, false); stolen >= 0) return stolen;
    }
    return -1;
}

void ThreadPool::run_task(Job& job, std::int64_t i) {
    try {
        (*job.task)(i);
    } catch (...) {
        // Keep the first error for the submitter; a worker thread must never unwind.
        std::lock_guard lock(mutex_);
        if (!job.error) job.error = std::current_exception();
    }
}

void ThreadPool::work_on(Job& job, int self) {
    const TaskScope scope;
    std::int64_t ran = 0;
    for (std::int64_t i = next_task(job, self); i >= 0; i = next_task(job, self), ++ran) run_task(job, i);
    // Counted once per thread, not per task: a decode step runs thousands of tasks of about
    // two microseconds, and every shared increment moved the counter's cache line between cores.
    if (ran > 0 && job.finished.fetch_add(ran, std::memory_order_acq_rel) + ran == job.count) {
        std::lock_guard lock(mutex_);
        done_.notify_all();
    }
}

void ThreadPool::worker_loop(int self) {
    std::uint64_t seen = 0;
    for (;;) {
        // Spin briefly on the lock-free generation counter, then sleep on the condition.
        for (int spin = 0; spin < kSpinIterations; ++spin) {
            if (published_.load(std::memory_order_acquire) != seen) break;
#if defined(__x86_64__)
            __builtin_ia32_pause();
#endif
        }
        Job* job = nullptr;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return generation_ != seen; });
            seen = generation_;
            if (stopping_) return;
            job = job_;
            if (job != nullptr) ++job->attached_workers;
        }
        if (job != nullptr) {
            work_on(*job, self);
            // The job lives on the submitter's stack: this is the worker's last touch of it.
            // The empty critical section orders the detach before the notification for a
            // submitter that checked the condition and is about to sleep.
            job->attached_workers.fetch_sub(1, std::memory_order_release);
            { std::lock_guard lock(mutex_); }
            done_.notify_all();
        }
    }
}

void ThreadPool::run(std::int64_t count, FunctionRef<void(std::int64_t)> task) { run_job(count, task, false); }

void ThreadPool::run_in_runs(std::int64_t count, FunctionRef<void(std::int64_t)> task) { run_job(count, task, true); }

void ThreadPool::run_job(std::int64_t count, FunctionRef<void(std::int64_t)>& task, bool in_runs) {
    if (count <= 0) return;
    if (count == 1 || workers_.empty() || inside_pool_task) {
        for (std::int64_t i = 0; i < count; ++i) task(i);
        return;
    }
    check(!in_runs || count <= std::int64_t{0xFFFFFFFF}, "thread pool: {} tasks are more than one job can split into runs",
          count);
    std::lock_guard submit_lock(submit_mutex_);
    Job job;
    job.task = &task;
    job.count = count;
    job.in_runs = in_runs;
    if (in_runs) {
        // Thread t owns [t * count / threads, (t + 1) * count / threads). Set before publishing:
        // no worker reads a run before it sees the job.
        const auto threads = static_cast<std::uint64_t>(size()), n = static_cast<std::uint64_t>(count);
        for (std::uint64_t t = 0; t < threads; ++t) {
            runs_[t].bounds.store(pack_run(t * n / threads, (t + 1) * n / threads), std::memory_order_relaxed);
        }
    }
    submit(job);
}

// Publishes the job, works on it with the workers, and returns once every task has run and
// no worker holds the job any more (it lives on the caller's stack); rethrows a task's error.
void ThreadPool::submit(Job& job) {
    {
        std::lock_guard lock(mutex_);
        job_ = &job;
        ++generation_;
        published_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    work_on(job, 0);
    const auto done = [&] {
        return job.finished.load(std::memory_order_acquire) == job.count &&
               job.attached_workers.load(std::memory_order_acquire) == 0;
    };
    // Spin before sleeping, as the workers do: the others' last tasks usually end within
    // microseconds, and a submitter that sleeps on the condition pays a futex wake-up (tens of
    // microseconds on a virtual machine, whose idle vCPU must be woken by the host) on every
    // op of a decode step: two threads decoded at 59% of the read bandwidth, one at 80%.
    for (int spin = 0; spin < kSpinIterations && !done(); ++spin) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
    }
    {
        std::unique_lock lock(mutex_);
        done_.wait(lock, done);
        job_ = nullptr;  // workers that wake late find no job (they attach under this lock)
    }
    if (job.error) std::rethrow_exception(job.error);
}

void ThreadPool::parallel_for(std::int64_t n, std::int64_t grain,
                              FunctionRef<void(std::int64_t, std::int64_t)> body) {
    if (n <= 0) return;
    const std::int64_t chunk = std::max<std::int64_t>(grain, 1);
    const std::int64_t chunks = (n + chunk - 1) / chunk;
    run(chunks, [&](std::int64_t k) { body(k * chunk, std::min(n, (k + 1) * chunk)); });
}

int ThreadPool::default_threads() {
    if (const char* env = std::getenv("FORGE_THREADS"); env != nullptr && *env != '\0') {
        char* end = nullptr;
        const long value = std::strtol(env, &end, 10);
        check(end != env && *end == '\0' && value >= 1 && value <= 1024,
              "FORGE_THREADS must be a whole number from 1 to 1024, got '{}'", env);
        return static_cast<int>(value);
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

ThreadPool& ThreadPool::global() {
    auto& pool = global_pool();
    if (!pool) pool = std::make_unique<ThreadPool>(default_threads());
    return *pool;
}

void ThreadPool::set_global_threads(int threads) {
    auto& pool = global_pool();
    if (pool && pool->size() == threads) return;
    pool.reset();
    pool = std::make_unique<ThreadPool>(threads);
}

}  // namespace forge
