// conv1d op: against double-precision math for causal and valid, dilated, grouped and
// depthwise convolutions, batched or not; bad shapes; bitwise-identical for any thread count.
#include "core/ops/conv1d.h"

#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <vector>

namespace forge {
namespace {

Tensor random_tensor(const Shape& shape, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(static_cast<std::size_t>(shape.product()));
    for (auto& v : values) v = uniform(rng);
    return Tensor::from(std::span<const float>(values), shape);
}

void expect_matches_reference(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, Conv1dOptions o) {
    const std::int64_t batch = x.size(0), cin = x.size(1), t_in = x.size(2), cout = w.size(0), taps = w.size(2);
    const std::int64_t in_per_group = cin / o.groups, out_per_group = cout / o.groups;
    const std::int64_t pad = conv1d_left_pad(o.padding, taps, o.dilation);
    const std::int64_t t_out = o.padding == Conv1dPadding::Valid ? t_in - (taps - 1) * o.dilation : t_in;
    ASSERT_EQ(y.shape(), (Shape{batch, cout, t_out}));
    for (std::int64_t b = 0; b < batch; ++b) {
        for (std::int64_t oc = 0; oc < cout; ++oc) {
            for (std::int64_t t = 0; t < y.size(2); ++t) {
                double sum = bias.defined() ? bias.at({oc}) : 0.0;
                for (std::int64_t i = 0; i < in_per_group; ++i) {
                    for (std::int64_t k = 0; k < taps; ++k) {
                        const std::int64_t s = t + k * o.dilation - pad;
                        if (s >= 0 && s < t_in) {
                            sum += static_cast<double>(w.at({oc, i, k})) * x.at({b, oc / out_per_group * in_per_group + i, s});
                        }
                    }
                }
                ASSERT_NEAR(y.at({b, oc, t}), sum, 1e-5 * static_cast<double>(in_per_group * taps + 1)) << b << "," << oc << "," << t;
            }
        }
    }
}

TEST(Conv1dOp, CausalDilatedLikeAnAmpModel) {
    const Tensor x = random_tensor({2, 16, 1200}, 1);
    const Tensor w = random_tensor({16, 16, 3}, 2);
    const Tensor bias = random_tensor({16}, 3);
    for (std::int64_t d : {1, 8, 512}) {
        const Conv1dOptions o{d, 1, Conv1dPadding::Causal};
        expect_matches_reference(conv1d(x, w, bias, o), x, w, bias, o);
    }
}

TEST(Conv1dOp, ValidGroupedDepthwiseAndUnbatched) {
    const Tensor x = random_tensor({1, 12, 90}, 4);
    const Conv1dOptions valid{3, 1, Conv1dPadding::Valid};
    const Tensor w = random_tensor({8, 12, 6}, 5);
    expect_matches_reference(conv1d(x, w, Tensor(), valid), x, w, Tensor(), valid);
    const Conv1dOptions grouped{2, 3, Conv1dPadding::Causal};
    const Tensor wg = random_tensor({9, 4, 3}, 6);
    expect_matches_reference(conv1d(x, wg, random_tensor({9}, 7), grouped), x, wg, random_tensor({9}, 7), grouped);
    const Conv1dOptions depthwise{5, 12, Conv1dPadding::Causal};
    const Tensor wd = random_tensor({12, 1, 3}, 8);
    expect_matches_reference(conv1d(x, wd, Tensor(), depthwise), x, wd, Tensor(), depthwise);
    const Tensor unbatched = conv1d(x.select(0, 0), w, Tensor(), valid);
    ASSERT_EQ(unbatched.rank(), 2);
    expect_matches_reference(unbatched.unsqueeze(0), x, w, Tensor(), valid);
}

TEST(Conv1dOp, SamePaddingCentresTheTaps) {  // the Conformer convolution module's depthwise conv
    const Tensor x = random_tensor({2, 6, 40}, 14);
    const Conv1dOptions depthwise{.dilation = 1, .groups = 6, .padding = Conv1dPadding::Same};
    const Tensor wd = random_tensor({6, 1, 9}, 15);
    expect_matches_reference(conv1d(x, wd, random_tensor({6}, 16), depthwise), x, wd, random_tensor({6}, 16), depthwise);
    const Conv1dOptions dilated{.dilation = 3, .groups = 1, .padding = Conv1dPadding::Same};
    const Tensor w = random_tensor({4, 6, 3}, 17);
    expect_matches_reference(conv1d(x, w, Tensor(), dilated), x, w, Tensor(), dilated);
    EXPECT_THROW(conv1d(x, random_tensor({6, 1, 4}, 18), Tensor(), depthwise), Error);  // even kernel
}

TEST(Conv1dOp, NonContiguousInput) {
    const Tensor x = random_tensor({2, 50, 8}, 9).transpose(1, 2);  // [2, 8, 50], time strided
    const Tensor w = random_tensor({4, 8, 2}, 10);
    const Conv1dOptions o{4, 1, Conv1dPadding::Causal};
    expect_matches_reference(conv1d(x, w, Tensor(), o), x, w, Tensor(), o);
}

TEST(Conv1dOp, BadShapesAreErrors) {
    const Tensor x = random_tensor({1, 8, 20}, 1);
    EXPECT_THROW(conv1d(x, random_tensor({4, 7, 3}, 2), Tensor()), Error);                   // C_in mismatch
    EXPECT_THROW(conv1d(x, random_tensor({4, 8, 3}, 2), random_tensor({5}, 3)), Error);      // bias size
    EXPECT_THROW(conv1d(x, random_tensor({4, 3, 3}, 2), Tensor(), {1, 3}), Error);            // groups do not divide
    EXPECT_THROW(conv1d(x, random_tensor({4, 8, 3}, 2), Tensor(), {0}), Error);               // dilation
    EXPECT_THROW(conv1d(x, random_tensor({4, 8, 3}, 2), Tensor(), {10, 1, Conv1dPadding::Valid}), Error);  // too short
    EXPECT_THROW(conv1d(random_tensor({8}, 1), random_tensor({4, 8, 3}, 2), Tensor()), Error);
}

TEST(Conv1dOp, SameBitsForAnyThreadCount) {
    const Tensor x = random_tensor({3, 16, 5000}, 11);
    const Tensor w = random_tensor({16, 16, 3}, 12);
    const Tensor bias = random_tensor({16}, 13);
    std::vector<std::vector<std::uint32_t>> results;
    for (int threads : {1, 2, 3}) {
        ThreadPool::set_global_threads(threads);
        std::vector<std::uint32_t> run;
        for (float v : conv1d(x, w, bias, {64}).to_vector()) run.push_back(std::bit_cast<std::uint32_t>(v));
        results.push_back(std::move(run));
    }
    ThreadPool::set_global_threads(ThreadPool::default_threads());
    EXPECT_EQ(results[0], results[1]);
    EXPECT_EQ(results[0], results[2]);
}

}  // namespace
}  // namespace forge
