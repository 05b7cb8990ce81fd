#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace forge {
namespace {

TEST(ThreadPool, ParallelForVisitsEveryIndexExactlyOnce) {
    for (int threads : {1, 2, 3, 5}) {
        ThreadPool pool(threads);
        std::vector<std::atomic<int>> visits(10007);
        pool.parallel_for(10007, 100, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t i = begin; i < end; ++i) visits[static_cast<std::size_t>(i)]++;
        });
        for (auto& v : visits) ASSERT_EQ(v.load(), 1) << threads << " threads";
    }
}

TEST(ThreadPool, ChunksDependOnlyOnSizeAndGrain) {
    auto chunks_with = [](int threads) {
        ThreadPool pool(threads);
        std::vector<std::pair<std::int64_t, std::int64_t>> chunks(11);
        pool.parallel_for(1050, 100, [&](std::int64_t begin, std::int64_t end) {
            chunks[static_cast<std::size_t>(begin / 100)] = {begin, end};
        });
        return chunks;
    };
    const auto one = chunks_with(1);
    EXPECT_EQ(one.back(), (std::pair<std::int64_t, std::int64_t>{1000, 1050}));
    EXPECT_EQ(chunks_with(2), one);
    EXPECT_EQ(chunks_with(4), one);
}

TEST(ThreadPool, ChunkedFloatSumIsBitwiseIdenticalForAnyThreadCount) {
    std::vector<float> values(100000);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = 1.0f / static_cast<float>(i + 1);
    auto sum_with = [&](int threads) {
        ThreadPool pool(threads);
        std::vector<float> partial(100);
        pool.parallel_for(static_cast<std::int64_t>(values.size()), 1000, [&](std::int64_t begin, std::int64_t end) {
            float s = 0;
            for (std::int64_t i = begin; i < end; ++i) s += values[static_cast<std::size_t>(i)];
            partial[static_cast<std::size_t>(begin / 1000)] = s;
        });
        return std::accumulate(partial.begin(), partial.end(), 0.0f);  // combined in chunk order
    };
    const float reference = sum_with(1);
    for (int threads : {2, 3, 7}) EXPECT_EQ(sum_with(threads), reference);
}

TEST(ThreadPool, NestedCallsRunInlineWithoutDeadlock) {
    ThreadPool pool(3);
    std::atomic<int> inner_items{0};
    pool.run(8, [&](std::int64_t) {
        pool.run(4, [&](std::int64_t) { inner_items++; });
    });
    EXPECT_EQ(inner_items.load(), 32);
}

TEST(ThreadPool, ManySmallJobsInARow) {
    ThreadPool pool(2);
    std::atomic<std::int64_t> total{0};
    for (int job = 0; job < 2000; ++job) {
        pool.run(3, [&](std::int64_t i) { total += i; });
    }
    EXPECT_EQ(total.load(), 2000 * 3);
}

TEST(ThreadPool, ATaskExceptionReachesTheCallerAfterAllTasksRan) {
    ThreadPool pool(2);
    std::atomic<int> ran{0};
    EXPECT_THROW(pool.run(16,
                          [&](std::int64_t i) {
                              ran++;
                              if (i == 5) throw std::runtime_error("task 5 failed");
                          }),
                 std::runtime_error);
    EXPECT_EQ(ran.load(), 16);
    pool.run(4, [&](std::int64_t) { ran++; });  // the pool is still usable
    EXPECT_EQ(ran.load(), 20);
}

TEST(ThreadPool, RunInRunsRunsEveryTaskExactlyOnce) {
    for (int threads : {1, 2, 3, 5}) {
        ThreadPool pool(threads);
        for (std::int64_t count : {1, 2, 3, 7, 10007}) {
            std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
            pool.run_in_runs(count, [&](std::int64_t i) { runs[static_cast<std::size_t>(i)]++; });
            // A shared-counter job in between must not leave anything behind for the next.
            pool.run(5, [](std::int64_t) {});
            for (auto& r : runs) ASSERT_EQ(r.load(), 1) << threads << " threads, " << count << " tasks";
        }
    }
}

TEST(ThreadPool, RunInRunsFinishesTheRunOfAThreadThatIsHeldUp) {
    // Whichever thread takes task 0 waits there until every other task has run: the others
    // must take the rest of its run from the back, or this never ends.
    ThreadPool pool(2);
    constexpr std::int64_t kTasks = 100;
    std::atomic<std::int64_t> others{0};
    std::atomic<bool> gave_up{false};
    pool.run_in_runs(kTasks, [&](std::int64_t i) {
        if (i != 0) {
            others++;
            return;
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (others.load() < kTasks - 1) {
            if (std::chrono::steady_clock::now() > deadline) {
                gave_up = true;
                return;
            }
            std::this_thread::yield();
        }
    });
    EXPECT_FALSE(gave_up.load()) << "the held-up thread's run was not taken over";
    EXPECT_EQ(others.load(), kTasks - 1);
}

TEST(ThreadPool, RunInRunsRethrowsATaskExceptionAfterAllTasksRan) {
    ThreadPool pool(3);
    std::atomic<int> ran{0};
    EXPECT_THROW(pool.run_in_runs(40,
                                  [&](std::int64_t i) {
                                      ran++;
                                      if (i == 17) throw std::runtime_error("task 17 failed");
                                  }),
                 std::runtime_error);
    EXPECT_EQ(ran.load(), 40);
}

TEST(ThreadPool, RejectsZeroThreads) { EXPECT_THROW(ThreadPool(0), std::exception); }

TEST(ThreadPool, RejectsANegativeThreadCountByName) {
    // Checked before anything is sized by it (a negative count as a size is 2^64 - 1).
    try {
        ThreadPool pool(-1);
        FAIL() << "a pool of -1 threads was made";
    } catch (const std::bad_alloc&) {
        FAIL() << "the count reached an allocation before the check";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("thread count"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace forge
