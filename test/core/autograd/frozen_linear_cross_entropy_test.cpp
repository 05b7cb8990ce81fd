// ag::frozen_linear_cross_entropy against the composition it fuses,
// cross_entropy(frozen_linear(x, head), targets): the same loss and the same gradient of x, with
// f32, Q8_0 and K-quant heads (read from the file and from the interleaved copy the simd build
// multiplies), label smoothing, ignored targets, an incoming gradient other than 1, and chunks
// of one row, several rows with a ragged last one, or all rows at once.
#include "core/autograd/ag.h"
#include "core/autograd/ops/frozen_linear.h"
#include "core/autograd/ops/frozen_linear_cross_entropy.h"
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/random/counter_rng.h"
#include "core/random/random_tensor.h"
#include "test/core/autograd/golden.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace forge::ag {
namespace {

const std::filesystem::path kModels = std::filesystem::path(FORGE_TEST_DATA_DIR) / "llm";
constexpr std::int32_t kIgnored = -100;

// The largest |got - want| relative to the largest |want| (golden.h's scaled_error).
double relative_error(const Tensor& got, const Tensor& want) {
    const std::vector<float> w = want.contiguous().to_vector();
    return testing::scaled_error(got.contiguous().to_vector(), std::vector<double>(w.begin(), w.end()));
}

struct Head {
    std::string name;
    infer::Linear layer;
};

// The output heads of the test models (their token embeddings, tied), as a model loads them:
// f32, Q8_0 and Q6_K (qwen3-q4_k_m's), as stored and interleaved.
std::vector<Head> heads(std::vector<gguf::GgufFile>& files) {
    std::vector<Head> out;
    files.reserve(3);  // the heads point into the files' mappings
    for (const char* model : {"qwen3-f32.gguf", "qwen3-q8_0.gguf", "qwen3-q4_k_m.gguf"}) {
        files.push_back(gguf::GgufFile::open((kModels / model).string()));
        const Tensor weight = files.back().tensor(files.back().tensor_info("token_embd.weight"));
        out.push_back({fmt::format("{} {}", model, dtype_name(weight.dtype())), {weight, Tensor{}, nullptr}});
        if (auto interleaved = infer::InterleavedWeights::from(weight, false))
            out.push_back({out.back().name + " interleaved", {weight, Tensor{}, interleaved}});
    }
    return out;
}

// The last of the heads read from `model` (the interleaved one where the build has it).
infer::Linear head_of(const std::vector<Head>& all, std::string_view model) {
    const auto it = std::find_if(all.rbegin(), all.rend(), [&](const Head& h) { return h.name.starts_with(model); });
    return it->layer;
}

// Rows [2, 7] of the head's width, and their targets with three ignored.
Tensor inputs_for(const infer::Linear& head) {
    return requires_grad(random::uniform_tensor(Shape{2, 7, head.n_in()}, random::stream_key(28, 1), -2.0f, 2.0f));
}

Tensor targets_for(const infer::Linear& head) {
    std::vector<std::int32_t> t;
    for (std::int64_t i = 0; i < 14; ++i) t.push_back(static_cast<std::int32_t>((37 * i + 5) % head.n_out()));
    t[0] = t[6] = t[7] = kIgnored;
    return Tensor::from(std::span<const std::int32_t>(t), Shape{2, 7});
}

struct LossAndGradient {
    double loss;
    Tensor dx;
};

// The loss, and x's gradient for an incoming gradient `incoming` (a micro-batch's share of a
// step's loss is less than 1).
template <typename LossFn>
LossAndGradient run(const Tensor& x, float incoming, LossFn loss_of) {
    zero_grad({x});
    const Tensor loss = loss_of(x);
    backward(mul(loss, incoming));
    return {loss.item(), grad(x)};
}

// Measured (simd build, AVX-512): the loss is the same bits (the rows' terms summed in the same
// order). With an incoming gradient of 1 the gradient is the same bits too, but for chunks of
// one row (up to 7.4e-7 relative to its largest element: a one-row product takes the GEMM's
// matrix-vector path, which sums in another order); with 0.37, up to 2.0e-6 (the fused op
// scales d x by it, the composition scales d logits). Bounds: exact where measured exact (the
// scalar kernel sums in one order for any row count), else 10x.
constexpr double kGradientBound = 2e-5;

TEST(FrozenLinearCrossEntropy, EqualsCrossEntropyOfFrozenLinear) {
    std::vector<gguf::GgufFile> files;
    for (const Head& head : heads(files)) {
        const Tensor x = inputs_for(head.layer), targets = targets_for(head.layer);
        for (const float smoothing : {0.0f, 0.1f}) {
            const CrossEntropyOptions options{.ignore_index = kIgnored, .label_smoothing = smoothing};
            for (const float incoming : {1.0f, 0.37f}) {
                const LossAndGradient want = run(x, incoming, [&](const Tensor& in) {
                    return cross_entropy(frozen_linear(in, head.layer), targets, options);
                });
                for (const std::int64_t chunk_rows : {0, 1, 4}) {
                    const LossAndGradient got = run(x, incoming, [&](const Tensor& in) {
                        return frozen_linear_cross_entropy(in, head.layer, targets, options, {}, chunk_rows);
                    });
                    const std::string what = fmt::format("{}, smoothing {}, incoming gradient {}, chunks of {}",
                                                         head.name, smoothing, incoming, chunk_rows);
                    EXPECT_EQ(got.loss, want.loss) << what;
                    EXPECT_EQ(got.dx.shape(), x.shape()) << what;
                    const double gradient_error = relative_error(got.dx, want.dx);
                    if (incoming == 1.0f && chunk_rows != 1) EXPECT_EQ(got.dx.to_vector(), want.dx.to_vector()) << what;
                    else EXPECT_LE(gradient_error, kGradientBound) << what;
                    RecordProperty(what, fmt::format("{:.3g}", gradient_error));
                }
            }
        }
    }
}

// The observer sees each counted row once, in order, with the logits frozen_linear gives it.
TEST(FrozenLinearCrossEntropy, ObserverSeesTheCountedRowsLogits) {
    std::vector<gguf::GgufFile> files;
    const infer::Linear head = head_of(heads(files), "qwen3-q8_0.gguf");
    const Tensor x = inputs_for(head), targets = targets_for(head);
    const Tensor want = frozen_linear(detach(x), head).reshape(Shape{14, head.n_out()});
    std::vector<std::int64_t> seen;
    const auto observe = [&](std::span<const std::int64_t> rows, const Tensor& logits) {
        ASSERT_EQ(logits.shape(), (Shape{static_cast<std::int64_t>(rows.size()), head.n_out()}));
        for (std::size_t r = 0; r < rows.size(); ++r) {
            seen.push_back(rows[r]);
            EXPECT_EQ(logits.narrow(0, static_cast<std::int64_t>(r), 1).to_vector(),
                      want.narrow(0, rows[r], 1).to_vector())
                << "row " << rows[r];
        }
    };
    frozen_linear_cross_entropy(x, head, targets, {.ignore_index = kIgnored}, observe, 4);
    EXPECT_EQ(seen, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13}));
}

// Nothing counted: a zero loss and a zero gradient, as cross_entropy gives.
TEST(FrozenLinearCrossEntropy, NoCountedTargetGivesZeroLossAndGradient) {
    std::vector<gguf::GgufFile> files;
    const infer::Linear head = head_of(heads(files), "qwen3-f32.gguf");
    const Tensor x = inputs_for(head);
    const std::vector<std::int32_t> none(14, kIgnored);
    const Tensor targets = Tensor::from(std::span<const std::int32_t>(none), Shape{2, 7});
    const LossAndGradient got =
        run(x, 1.0f, [&](const Tensor& in) { return frozen_linear_cross_entropy(in, head, targets, {.ignore_index = kIgnored}); });
    EXPECT_EQ(got.loss, 0.0);
    for (const float v : got.dx.to_vector()) EXPECT_EQ(v, 0.0f);
}

// Without gradients (evaluation) the loss is the same and nothing is recorded.
TEST(FrozenLinearCrossEntropy, WithoutGradientsGivesTheSameLoss) {
    std::vector<gguf::GgufFile> files;
    const infer::Linear head = head_of(heads(files), "qwen3-q4_k_m.gguf");
    const Tensor x = inputs_for(head), targets = targets_for(head);
    const float with = frozen_linear_cross_entropy(x, head, targets, {.ignore_index = kIgnored}, {}, 4).item();
    NoGradScope no_grad;
    const Tensor without = frozen_linear_cross_entropy(x, head, targets, {.ignore_index = kIgnored}, {}, 4);
    EXPECT_EQ(without.item(), with);
    EXPECT_FALSE(requires_grad_of(without));
}

TEST(FrozenLinearCrossEntropy, RefusesBadArguments) {
    std::vector<gguf::GgufFile> files;
    const infer::Linear head = head_of(heads(files), "qwen3-f32.gguf");
    const Tensor x = inputs_for(head), targets = targets_for(head);
    const Tensor narrow_x = Tensor::zeros({14, head.n_in() - 1});
    EXPECT_THROW(frozen_linear_cross_entropy(narrow_x, head, targets), Error);
    std::vector<std::int32_t> outside(14, 0);
    outside[3] = static_cast<std::int32_t>(head.n_out());
    EXPECT_THROW(frozen_linear_cross_entropy(x, head, Tensor::from(std::span<const std::int32_t>(outside), Shape{14})),
                 Error);
    EXPECT_THROW(frozen_linear_cross_entropy(x, head, Tensor::zeros({13}, DType::I32)), Error);
    EXPECT_THROW(frozen_linear_cross_entropy(x, head, targets, {.label_smoothing = 1.5f}), Error);
}

}  // namespace
}  // namespace forge::ag
