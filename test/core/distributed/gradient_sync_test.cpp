// GradientSync against a pretend second rank: buckets in reverse parameter order, sent while
// the backward still runs, summed gradients written back, zeros for parameters without one.
#include "core/autograd/ag.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/single_process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace forge::distributed {
namespace {

// Rank 0 of two, whose partner's gradients are all `other`: every sum adds `other`.
class PretendPair final : public Communicator {
public:
    explicit PretendPair(float other) : other_(other) {}
    int rank() const override { return 0; }
    int size() const override { return 2; }
    std::string describe() const override { return "pretend pair"; }
    void sum_in_rank_order(std::span<float> data) override {
        std::lock_guard lock(mutex_);
        sizes.push_back(data.size());
        for (float& v : data) v = v + other_;
    }
    void sum_in_rank_order(std::span<double> data) override {
        for (double& v : data) v = v + other_;
    }
    [[noreturn]] void abort_job(int) override { std::abort(); }

    std::mutex mutex_;
    std::vector<std::size_t> sizes;

private:
    float other_;
};

std::size_t calls(PretendPair& comm) {
    std::lock_guard lock(comm.mutex_);
    return comm.sizes.size();
}

TEST(GradientSync, SumsBucketsInReverseParameterOrderWhileTheBackwardRuns) {
    const Tensor a = ag::requires_grad(Tensor::from({1.0f, 2.0f, 3.0f}, {3}));
    const Tensor b = ag::requires_grad(Tensor::from({4.0f, 5.0f}, {2}));
    const Tensor c = ag::requires_grad(Tensor::from({6.0f}, {1}));
    PretendPair comm(100.0f);
    GradientSync sync(comm, {a, b, c}, /*bucket_elements=*/2);
    // Buckets from the back: {c, b} (3 elements, the first to reach 2), then {a}.
    ASSERT_EQ(sync.buckets(), 2u);
    // loss = sum(a * 2) + sum(b * 3); c gets no gradient (it counts as zeros).
    const Tensor loss = ag::add(ag::sum_all(ag::mul(a, 2.0f)), ag::sum_all(ag::mul(b, 3.0f)));
    ag::backward(loss, {}, sync.on_final_gradient());
    sync.finish();
    EXPECT_EQ(comm.sizes, (std::vector<std::size_t>{3, 3}));  // {c, b} then {a}
    EXPECT_EQ(ag::grad(a).to_vector(), (std::vector<float>{102.0f, 102.0f, 102.0f}));
    EXPECT_EQ(ag::grad(b).to_vector(), (std::vector<float>{103.0f, 103.0f}));
    EXPECT_EQ(ag::grad(c).to_vector(), (std::vector<float>{100.0f}));

    // The next step starts clean: a second round sends and sums again.
    ag::zero_grad({a, b, c});
    ag::backward(ag::sum_all(ag::mul(c, 5.0f)), {}, sync.on_final_gradient());
    sync.finish();
    EXPECT_EQ(calls(comm), 4u);
    EXPECT_EQ(ag::grad(c).to_vector(), (std::vector<float>{105.0f}));
    EXPECT_EQ(ag::grad(a).to_vector(), (std::vector<float>{100.0f, 100.0f, 100.0f}));
}

TEST(GradientSync, ABucketGoesAsSoonAsItsGradientsAreFinal) {
    // loss = sum(exp(3a) * b): b's gradient is final at the first op of the backward, a's only
    // at the end. b's bucket (the first: buckets go from the back) is summed while the
    // backward still works towards a.
    const Tensor a = ag::requires_grad(Tensor::from({1.0f}, {1}));
    const Tensor b = ag::requires_grad(Tensor::from({2.0f}, {1}));
    PretendPair comm(0.0f);
    GradientSync sync(comm, {a, b}, /*bucket_elements=*/1);
    auto hook = sync.on_final_gradient();
    bool b_summed_before_a_final = false;
    ag::backward(ag::sum_all(ag::mul(ag::exp(ag::mul(a, 3.0f)), b)), {}, [&](const ag::AutogradMeta& leaf) {
        if (&leaf == a.autograd_meta().get()) {
            // The communication thread runs on its own: give it up to 10 s to sum b's bucket.
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (calls(comm) == 0 && std::chrono::steady_clock::now() < deadline) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            b_summed_before_a_final = calls(comm) == 1;
        }
        hook(leaf);
    });
    sync.finish();
    EXPECT_TRUE(b_summed_before_a_final);
    EXPECT_EQ(comm.sizes, (std::vector<std::size_t>{1, 1}));
}

TEST(GradientSync, OneProcessLeavesGradientsAlone) {
    const Tensor a = ag::requires_grad(Tensor::from({1.0f, 2.0f}, {2}));
    SingleProcess one;
    GradientSync sync(one, {a});
    EXPECT_FALSE(static_cast<bool>(sync.on_final_gradient()));
    ag::backward(ag::sum_all(ag::mul(a, 2.0f)), {}, sync.on_final_gradient());
    sync.finish();
    EXPECT_EQ(ag::grad(a).to_vector(), (std::vector<float>{2.0f, 2.0f}));
}

}  // namespace
}  // namespace forge::distributed
