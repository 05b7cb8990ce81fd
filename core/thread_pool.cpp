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
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
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

void ThreadPool::work_on(Job& job) {
    const TaskScope scope;
    for (;;) {
        const std::int64_t i = job.next.fetch_add(1, std::memory_order_relaxed);
        if (i >= job.count) return;
        try {
            (*job.task)(i);
        } catch (...) {
            // Keep the first error for the submitter; a worker thread must never unwind.
            std::lock_guard lock(mutex_);
            if (!job.error) job.error = std::current_exception();
        }
        if (job.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == job.count) {
            std::lock_guard lock(mutex_);
            done_.notify_all();
        }
    }
}

void ThreadPool::worker_loop() {
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
            work_on(*job);
            // The job lives on the submitter's stack: detach under the lock, after which this
            // worker never touches it again.
            std::lock_guard lock(mutex_);
            --job->attached_workers;
            done_.notify_all();
        }
    }
}

void ThreadPool::run(std::int64_t count, FunctionRef<void(std::int64_t)> task) {
    if (count <= 0) return;
    if (count == 1 || workers_.empty() || inside_pool_task) {
        for (std::int64_t i = 0; i < count; ++i) task(i);
        return;
    }
    std::lock_guard submit(submit_mutex_);
    Job job;
    job.task = &task;
    job.count = count;
    {
        std::lock_guard lock(mutex_);
        job_ = &job;
        ++generation_;
        published_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    work_on(job);
    {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] {
            return job.finished.load(std::memory_order_acquire) == job.count && job.attached_workers == 0;
        });
        job_ = nullptr;  // workers that wake late find no job
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
