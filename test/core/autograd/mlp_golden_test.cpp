// A 2-layer MLP written with named axes against PyTorch: the loss (cross-entropy with label
// smoothing and an ignored target) and every parameter's gradient
// (tools/make_autograd_goldens.py).
#include "core/autograd/backward.h"
#include "core/named/ops.h"

#include "test/core/autograd/golden.h"

namespace forge::ag {
namespace {

using named::Axes;
using testing::golden_f32;
using testing::loss_matches;
using testing::matches_golden;

// 10x the agreement measured with the float64 golden (simd and scalar builds): loss 2.95e-8
// relative, worst gradient 4.47e-7 of its tensor's largest element (w2, scalar build).
constexpr double kLossBound = 3.0e-7, kGradBound = 4.5e-6;

struct Batch {};
struct In {};
struct Hidden {};
struct Classes {};

TEST(TorchGolden, TwoLayerMlpWithNamedAxes) {
    const auto golden = testing::load_golden("mlp.json");
    const auto& p = golden["params"];
    named::Tensor<Axes<Hidden, In>> w1(golden_f32(p["w1"]));
    named::Tensor<Axes<Hidden>> b1(golden_f32(p["b1"]));
    named::Tensor<Axes<Classes, Hidden>> w2(golden_f32(p["w2"]));
    named::Tensor<Axes<Classes>> b2(golden_f32(p["b2"]));
    w1.requires_grad();
    b1.requires_grad();
    w2.requires_grad();
    b2.requires_grad();
    const named::Tensor<Axes<Batch, In>> x(golden_f32(golden["inputs"]["x"]));
    const named::Tensor<Axes<Batch>> targets(testing::golden_i64(golden["inputs"]["targets"]));

    const auto hidden = named::gelu_erf(named::dot<In>(x, w1) + b1);
    const auto logits = named::dot<Hidden>(hidden, w2) + b2;
    const auto loss = named::cross_entropy<Classes>(logits, targets, {.ignore_index = -100, .label_smoothing = 0.1f});
    backward(loss.untyped());

    const double want = golden["loss"].get<double>();
    EXPECT_TRUE(loss_matches(loss.untyped().item(), want, kLossBound));
    EXPECT_TRUE(matches_golden(w1.grad(), golden["grads"]["w1"], kGradBound));
    EXPECT_TRUE(matches_golden(b1.grad(), golden["grads"]["b1"], kGradBound));
    EXPECT_TRUE(matches_golden(w2.grad(), golden["grads"]["w2"], kGradBound));
    EXPECT_TRUE(matches_golden(b2.grad(), golden["grads"]["b2"], kGradBound));
}

}  // namespace
}  // namespace forge::ag
