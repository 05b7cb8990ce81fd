// ag::ctc_loss: against PyTorch's ctc_loss (tools/make_ctc_golden.py), gradcheck through
// log_softmax and on raw log-probabilities, and the checks on its arguments.
#include "core/autograd/ag.h"
#include "test/core/autograd/golden.h"
#include "test/core/autograd/test_util.h"

#include <limits>

namespace forge::ag {
namespace {

using testing::load_golden;
using testing::loss_matches;
using testing::matches_golden;
using testing::param;
using testing::passes_gradcheck;

CtcTargets golden_targets(const nlohmann::json& c) {
    return {testing::golden_i64(c["labels"]), c["input_lengths"].get<std::vector<std::int64_t>>(),
            c["target_lengths"].get<std::vector<std::int64_t>>(), c["blank"].get<std::int64_t>()};
}

// Measured against the float64 golden (worst of the four; simd build on an AVX-512 Xeon, scalar
// build): loss 4.4e-8, 4.4e-8 relative; gradient 6.0e-7, 5.7e-7 scaled error. Bounds: 10x.
constexpr double kLossBound = 4.4e-7, kGradBound = 6.0e-6;

void expect_matches_pytorch(const char* name, const char* reduction, CtcReduction r) {
    const auto golden = load_golden("ctc.json")[name];
    const Tensor logits = requires_grad(testing::golden_f32(golden["logits"]));
    const Tensor loss = ctc_loss(log_softmax(logits), golden_targets(golden), {.reduction = r});
    backward(loss);
    EXPECT_TRUE(loss_matches(loss.item(), golden[reduction]["loss"].get<double>(), kLossBound)) << name;
    EXPECT_TRUE(matches_golden(grad(logits), golden[reduction]["grad_logits"], kGradBound)) << name;
}

TEST(CtcLoss, MeanMatchesPyTorchBlankFirst) { expect_matches_pytorch("blank_first", "mean", CtcReduction::mean); }
TEST(CtcLoss, SumMatchesPyTorchBlankFirst) { expect_matches_pytorch("blank_first", "sum", CtcReduction::sum); }
TEST(CtcLoss, MeanMatchesPyTorchBlankLast) { expect_matches_pytorch("blank_last", "mean", CtcReduction::mean); }
TEST(CtcLoss, SumMatchesPyTorchBlankLast) { expect_matches_pytorch("blank_last", "sum", CtcReduction::sum); }

CtcTargets small_targets() {
    return {testing::ids({1, 2, 2, 3, 3, 0}, {2, 3}), {7, 5}, {3, 1}, 0};
}

TEST(GradcheckCtcLoss, ThroughLogSoftmax) {
    EXPECT_TRUE(passes_gradcheck(
        [](std::span<const Tensor> in) { return ctc_loss(log_softmax(in[0]), small_targets()); },
        {param({2, 7, 4}, 31, -2.0f, 2.0f)}));
}

TEST(GradcheckCtcLoss, OnRawLogProbabilitiesWithSum) {
    // Unnormalised inputs: the VJP is the true gradient at log_probs, not PyTorch's form.
    EXPECT_TRUE(passes_gradcheck(
        [](std::span<const Tensor> in) { return ctc_loss(in[0], small_targets(), {.reduction = CtcReduction::sum}); },
        {param({2, 7, 4}, 32, -2.0f, 0.0f)}));
}

TEST(CtcLoss, ImpossibleSequenceIsInfiniteUnlessZeroed) {
    // Two equal labels need three frames; sequence 0 has two.
    const Tensor lp = log_softmax(requires_grad(Tensor::zeros({2, 3, 3})));
    const CtcTargets t{testing::ids({1, 1, 2, 0}, {2, 2}), {2, 3}, {2, 1}, 0};
    EXPECT_EQ(ctc_loss(detach(lp), t).item(), std::numeric_limits<float>::infinity());
    const Tensor zeroed = ctc_loss(lp, t, {.zero_infinity = true});
    // Sequence 1 alone, over the batch of 2: of the 27 equally likely paths through 3 frames,
    // 6 collapse to "2" (222, 220, 022, 200, 020, 002).
    EXPECT_NEAR(zeroed.item(), -std::log(6.0 / 27.0) / 2.0, 1e-6);
}

TEST(CtcLoss, InfiniteExactlyBelowTheMinimumFrames) {
    const std::vector<std::vector<std::int32_t>> cases = {{1, 2, 3}, {1, 1, 2}, {2, 2, 2, 1}, {3}, {}};
    for (const auto& labels : cases) {
        const std::int64_t need = ctc_min_frames(labels);
        for (std::int64_t frames = std::max<std::int64_t>(1, need - 2); frames <= need + 1; ++frames) {
            const auto count = static_cast<std::int64_t>(labels.size());
            std::vector<std::int64_t> padded(labels.begin(), labels.end());
            padded.resize(std::max<std::size_t>(1, labels.size()), 1);
            const CtcTargets t{Tensor::from(std::span<const std::int64_t>(padded), {1, static_cast<std::int64_t>(padded.size())}),
                               {frames}, {count}, 0};
            const float loss = ctc_loss(Tensor::full({1, frames, 4}, -std::log(4.0f)), t).item();
            EXPECT_EQ(std::isinf(loss), frames < need) << "labels " << count << ", frames " << frames;
        }
    }
}

TEST(CtcLoss, RejectsBadLengthsAndLabels) {
    const Tensor lp = Tensor::zeros({2, 4, 3});
    auto fails = [&](CtcTargets t, const char* what) {
        try {
            ctc_loss(lp, t);
            ADD_FAILURE() << "accepted " << what;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    fails({testing::ids({1, 2, 1, 2}, {2, 2}), {5, 4}, {2, 2}, 0}, "input_lengths[0]");
    fails({testing::ids({1, 2, 1, 2}, {2, 2}), {4, 4}, {2, 3}, 0}, "target_lengths[1]");
    fails({testing::ids({1, 0, 1, 2}, {2, 2}), {4, 4}, {2, 2}, 0}, "is the blank");
    fails({testing::ids({1, 3, 1, 2}, {2, 2}), {4, 4}, {2, 2}, 0}, "label 3");
    fails({testing::ids({1, 2, 1, 2}, {2, 2}), {4}, {2, 2}, 0}, "input lengths");
    fails({testing::ids({1, 2, 1, 2}, {2, 2}), {4, 4}, {2, 2}, 3}, "blank 3");
}

}  // namespace
}  // namespace forge::ag
