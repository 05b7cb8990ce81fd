// A tensor whose axes have names the compiler checks: named::Tensor<Axes<Batch, In>>.
//
// It is the untyped forge::Tensor plus a type: the same single member, no extra state, no
// run-time checks beyond the rank check at construction from an untyped tensor. Ops on it
// (core/named/ops.h) compute their result's axes at compile time and call the
// differentiable ops of forge::ag, so a typed model trains like an untyped one.
#pragma once

#include "core/autograd/variable.h"
#include "core/error.h"
#include "core/named/axes.h"
#include "core/tensor.h"

namespace forge::named {

template <typename AxisList>
class Tensor;

template <typename... Names>
class Tensor<Axes<Names...>> {
public:
    using axes = Axes<Names...>;
    static constexpr int rank = static_cast<int>(sizeof...(Names));
    static_assert(unique_v<axes>, "a tensor cannot have the same axis name twice");

    Tensor() = default;
    // Name the axes of an untyped tensor, outermost first. The rank must match.
    explicit Tensor(forge::Tensor untyped) : t_(std::move(untyped)) {
        check(t_.rank() == rank, "named tensor with {} axes built from a tensor of rank {}", rank, t_.rank());
    }

    const forge::Tensor& untyped() const { return t_; }

    // The size of axis Name (a compile error if the tensor has no such axis).
    template <typename Name>
    std::int64_t size() const {
        static_assert(contains_v<Name, axes>, "size<Name>(): the tensor has no axis of that name");
        return t_.size(index_of_v<Name, axes>);
    }

    template <typename Name>
    static constexpr int axis() {
        static_assert(contains_v<Name, axes>, "axis<Name>(): the tensor has no axis of that name");
        return index_of_v<Name, axes>;
    }

    // Autograd: the same leaf handling as forge::ag.
    Tensor& requires_grad() {
        t_ = ag::requires_grad(t_);
        return *this;
    }
    forge::Tensor grad() const { return ag::grad(t_); }

private:
    forge::Tensor t_;
};

// Zero cost: the typed tensor is exactly the untyped one.
static_assert(sizeof(Tensor<Axes<struct SizeCheckAxis>>) == sizeof(forge::Tensor));

}  // namespace forge::named
