// Code that must not compile, one case per FORGE_CASE value; with no FORGE_CASE it must
// compile (the control that proves a failure comes from the case, not from the set-up).
// Run by meson with -fsyntax-only; the cases are `should_fail: true` tests.
#include "core/named/ops.h"

namespace forge::named {

struct Batch {};
struct In {};
struct Hidden {};
struct Out {};

void cases(const Tensor<Axes<Batch, In>>& x, const Tensor<Axes<Hidden, In>>& w1,
           const Tensor<Axes<Out, Hidden>>& w2, const Tensor<Axes<Out>>& bias) {
    const auto h = dot<In>(x, w1);     // [Batch, Hidden]
    const auto y = dot<Hidden>(h, w2);  // [Batch, Out]
    const auto z = y + bias;            // bias by name over Out
    (void)z;
#if FORGE_CASE == 1
    (void)dot<Out>(x, w1);  // contraction over an axis neither operand has
#elif FORGE_CASE == 2
    (void)dot<Hidden>(x, w2);  // x has no Hidden: a misaligned contraction
#elif FORGE_CASE == 3
    (void)(h + y);  // [Batch, Hidden] + [Batch, Out]: axes do not align
#elif FORGE_CASE == 4
    const Tensor<Axes<Hidden>> wrong_bias;
    (void)(y + wrong_bias);  // a bias over the wrong axis
#elif FORGE_CASE == 5
    (void)sum<Out>(x);  // reduce over an axis x does not have
#elif FORGE_CASE == 6
    (void)dot<In>(x, x);  // the result would have Batch twice
#endif
}

}  // namespace forge::named
