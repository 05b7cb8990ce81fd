// Named axes: result axes, contraction by name against plain matmul, broadcasting by name,
// and gradients flowing through typed code.
#include "core/named/ops.h"

#include "core/autograd/backward.h"
#include "core/ops/matmul.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace forge::named {
namespace {

struct Batch {};
struct In {};
struct Out {};
struct Time {};

static_assert(std::is_same_v<remove_t<In, Axes<Batch, In, Out>>, Axes<Batch, Out>>);
static_assert(is_suffix_v<Axes<Out>, Axes<Batch, Out>>);
static_assert(!is_suffix_v<Axes<Batch>, Axes<Batch, Out>>);
static_assert(sizeof(Tensor<Axes<Batch, In>>) == sizeof(forge::Tensor), "typed tensors cost nothing");
static_assert(std::is_same_v<decltype(dot<In>(std::declval<Tensor<Axes<Batch, In>>>(), std::declval<Tensor<Axes<Out, In>>>())),
                             Tensor<Axes<Batch, Out>>>);

forge::Tensor values(const Shape& shape, float start) {
    forge::Tensor t = forge::Tensor::empty(shape);
    float v = start;
    for (float& x : t.span<float>()) x = (v += 0.25f) - 2.0f;
    return t;
}

TEST(Named, DotOfMatricesIsMatmulWhicheverSideTheAxisIsOn) {
    const forge::Tensor x = values({3, 4}, 0), w = values({5, 4}, 1);
    const forge::Tensor want = matmul(x, w, false, true);
    const Tensor<Axes<Batch, In>> tx(x);
    const Tensor<Axes<Out, In>> tw(w);
    EXPECT_EQ(dot<In>(tx, tw).untyped().to_vector(), want.to_vector());
    // The same contraction with In first in x: x stored transposed.
    const Tensor<Axes<In, Batch>> txt(x.transpose(0, 1).contiguous());
    EXPECT_EQ(dot<In>(txt, tw).untyped().to_vector(), want.to_vector());
}

TEST(Named, DotOfHigherRanksFlattensTheRest) {
    const forge::Tensor x = values({2, 3, 4}, 0), w = values({4, 5}, 1);
    const Tensor<Axes<Batch, Time, In>> tx(x);
    const Tensor<Axes<In, Out>> tw(w);
    const auto y = dot<In>(tx, tw);
    static_assert(std::is_same_v<decltype(y), const Tensor<Axes<Batch, Time, Out>>>);
    EXPECT_EQ(y.size<Out>(), 5);
    const auto want = matmul(x.reshape({6, 4}), w).to_vector();
    const auto got = y.untyped().to_vector();
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]);
}

TEST(Named, BiasBroadcastsByName) {
    const Tensor<Axes<Batch, Out>> y(values({2, 3}, 0));
    const Tensor<Axes<Out>> bias(forge::Tensor::from({1.0f, 2.0f, 3.0f}, {3}));
    const auto z = y + bias;
    static_assert(std::is_same_v<decltype(z), const Tensor<Axes<Batch, Out>>>);
    EXPECT_FLOAT_EQ(z.untyped().at({1, 2}), y.untyped().at({1, 2}) + 3.0f);
}

TEST(Named, GradientsFlowThroughTypedCode) {
    Tensor<Axes<Out, In>> w(values({2, 3}, 0));
    w.requires_grad();
    const Tensor<Axes<Batch, In>> x(values({4, 3}, 2));
    const auto loss = sum<Batch>(sum<Out>(dot<In>(x, w)));
    ag::backward(loss.untyped());
    // d/dw sum(x·wᵀ) = column sums of x, for every output row.
    const auto column_sums = forge::sum(x.untyped(), 0).to_vector();
    const auto g = w.grad().to_vector();
    for (int o = 0; o < 2; ++o) {
        for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(g[o * 3 + i], column_sums[i]);
    }
}

TEST(Named, RankMismatchAtConstructionIsAnError) {
    EXPECT_THROW((Tensor<Axes<Batch, In>>(values({2, 3, 4}, 0))), Error);
}

}  // namespace
}  // namespace forge::named
