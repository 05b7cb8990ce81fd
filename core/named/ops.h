// Ops on named tensors. Each computes its result's axes at compile time and forwards to the
// differentiable untyped op (forge::ag), so typed code records gradients like untyped code.
//
//   struct Batch {}; struct In {}; struct Out {};
//   named::Tensor<Axes<Batch, In>> x = ...;
//   named::Tensor<Axes<Out, In>> w = ...;
//   auto y = named::dot<In>(x, w);   // Tensor<Axes<Batch, Out>>
//   auto z = named::dot<Out>(x, w);  // does not compile: x has no axis Out
#pragma once

#include "core/autograd/ops/loss.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/reduce.h"
#include "core/autograd/ops/softmax.h"
#include "core/named/contract.h"
#include "core/named/named_tensor.h"
#include "core/ops/reduce.h"

namespace forge::named {

// Contraction by name: sums over axis K, which both operands must have. The result has x's
// other axes, then w's other axes; repeating a name there does not compile either.
template <typename K, typename XAxes, typename WAxes>
auto dot(const Tensor<XAxes>& x, const Tensor<WAxes>& w) {
    static_assert(contains_v<K, XAxes>, "dot<K>(x, w): x has no axis K to contract");
    static_assert(contains_v<K, WAxes>, "dot<K>(x, w): w has no axis K to contract");
    using Result = concat_t<remove_t<K, XAxes>, remove_t<K, WAxes>>;
    static_assert(unique_v<Result>, "dot<K>(x, w): x and w share an axis other than K");
    check(x.template size<K>() == w.template size<K>(), "dot: axis sizes differ ({} vs {})", x.template size<K>(),
          w.template size<K>());
    return Tensor<Result>(detail::contract(x.untyped(), index_of_v<K, XAxes>, w.untyped(), index_of_v<K, WAxes>));
}

// Element-wise binary ops: the same axes, or one operand's axes are the other's trailing
// axes (broadcast by name). Anything else does not compile.
template <typename A, typename B>
using Broadcast = std::conditional_t<(A::rank >= B::rank), A, B>;

template <typename A, typename B>
constexpr bool broadcastable_v = is_suffix_v<A, B> || is_suffix_v<B, A>;

#define FORGE_NAMED_BINARY(op, function)                                                           \
    template <typename A, typename B>                                                               \
    Tensor<Broadcast<A, B>> operator op(const Tensor<A>& a, const Tensor<B>& b) {                  \
        static_assert(broadcastable_v<A, B>, "element-wise op on tensors whose axes do not align"); \
        return Tensor<Broadcast<A, B>>(ag::function(a.untyped(), b.untyped()));                    \
    }
FORGE_NAMED_BINARY(+, add)
FORGE_NAMED_BINARY(-, sub)
FORGE_NAMED_BINARY(*, mul)
FORGE_NAMED_BINARY(/, div)
#undef FORGE_NAMED_BINARY

template <typename A>
Tensor<A> operator*(const Tensor<A>& a, float c) {
    return Tensor<A>(ag::mul(a.untyped(), c));
}
template <typename A>
Tensor<A> operator+(const Tensor<A>& a, float c) {
    return Tensor<A>(ag::add(a.untyped(), c));
}

// Element-wise functions keep the axes.
#define FORGE_NAMED_UNARY(function)                     \
    template <typename A>                               \
    Tensor<A> function(const Tensor<A>& x) {            \
        return Tensor<A>(ag::function(x.untyped()));    \
    }
FORGE_NAMED_UNARY(exp)
FORGE_NAMED_UNARY(log)
FORGE_NAMED_UNARY(tanh)
FORGE_NAMED_UNARY(sigmoid)
FORGE_NAMED_UNARY(silu)
FORGE_NAMED_UNARY(relu)
FORGE_NAMED_UNARY(gelu_erf)
FORGE_NAMED_UNARY(gelu_tanh)
#undef FORGE_NAMED_UNARY

// Reductions remove the named axis.
template <typename Name, typename A>
Tensor<remove_t<Name, A>> sum(const Tensor<A>& x) {
    static_assert(contains_v<Name, A>, "sum<Name>: no such axis");
    return Tensor<remove_t<Name, A>>(ag::sum(x.untyped(), index_of_v<Name, A>));
}
template <typename Name, typename A>
Tensor<remove_t<Name, A>> mean(const Tensor<A>& x) {
    static_assert(contains_v<Name, A>, "mean<Name>: no such axis");
    return Tensor<remove_t<Name, A>>(ag::mean(x.untyped(), index_of_v<Name, A>));
}
// The index of the largest entry along Name (I64; no gradient).
template <typename Name, typename A>
Tensor<remove_t<Name, A>> argmax(const Tensor<A>& x) {
    static_assert(contains_v<Name, A>, "argmax<Name>: no such axis");
    return Tensor<remove_t<Name, A>>(forge::argmax(x.untyped(), index_of_v<Name, A>));
}

// Softmax along Name, which must be the innermost axis (where the kernels work).
template <typename Name, typename A>
Tensor<A> softmax(const Tensor<A>& x) {
    static_assert(contains_v<Name, A> && index_of_v<Name, A> == A::rank - 1, "softmax<Name>: Name must be the last axis");
    return Tensor<A>(ag::softmax(x.untyped()));
}

// Mean cross-entropy of logits whose class axis is Classes (the last axis) against integer
// targets over the other axes.
template <typename Classes, typename A>
Tensor<Axes<>> cross_entropy(const Tensor<A>& logits, const Tensor<remove_t<Classes, A>>& targets,
                             const ag::CrossEntropyOptions& options = {}) {
    static_assert(contains_v<Classes, A> && index_of_v<Classes, A> == A::rank - 1,
                  "cross_entropy<Classes>: Classes must be the last axis of the logits");
    return Tensor<Axes<>>(ag::cross_entropy(logits.untyped(), targets.untyped(), options));
}

template <typename A>
Tensor<Axes<>> mse(const Tensor<A>& a, const Tensor<A>& b) {
    return Tensor<Axes<>>(ag::mse(a.untyped(), b.untyped()));
}

}  // namespace forge::named
