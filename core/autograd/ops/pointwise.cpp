#include "core/autograd/ops/pointwise.h"

#include "core/autograd/broadcast_grad.h"
#include "core/autograd/variable.h"
#include "core/ops/binary.h"
#include "core/ops/unary.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/unary_grad.h"

#include <vector>

namespace forge::ag {
namespace {

constexpr std::int64_t kElementGrain = 1 << 15;

// dy * f'(x), one pass of the unary_backward kernel over chunks of the pool.
Tensor unary_backward(UnaryOp op, const Tensor& x, const Tensor& dy) {
    const Tensor xc = x.contiguous();
    const Tensor dyc = dy.contiguous();
    Tensor dx = Tensor::empty(x.shape());
    const std::span<const float> xs = xc.span<float>(), dys = dyc.span<float>();
    const std::span<float> dxs = dx.span<float>();
    ThreadPool::global().parallel_for(x.numel(), kElementGrain, [&](std::int64_t begin, std::int64_t end) {
        const auto b = static_cast<std::size_t>(begin), n = static_cast<std::size_t>(end - begin);
        kernels::active::unary_backward(op, xs.subspan(b, n), dys.subspan(b, n), dxs.subspan(b, n));
    });
    return dx;
}

Tensor unary_op(UnaryOp op, std::string_view name, const Tensor& x) {
    Tensor y = forge::unary(op, x);
    if (!any_requires_grad({&x})) return y;
    return record(name, y, {&x}, [op, x = detach(x)](const Tensor& g, InputMask) {
        return std::vector<Tensor>{unary_backward(op, x, g)};
    });
}

// The share of the gradient that goes to `a` in max(a, b) (or min): 1 where a wins, 1/2 on
// a tie, 0 where b wins. A rarely used op, so a plain loop rather than a kernel.
Tensor winner_share(const Tensor& a, const Tensor& b, const Shape& shape, bool is_max) {
    const Tensor ac = a.broadcast_to(shape).contiguous(), bc = b.broadcast_to(shape).contiguous();
    Tensor share = Tensor::empty(shape);
    const auto as = ac.span<float>(), bs = bc.span<float>();
    const auto out = share.span<float>();
    for (std::size_t i = 0; i < out.size(); ++i) {
        const bool wins = is_max ? as[i] > bs[i] : as[i] < bs[i];
        out[i] = as[i] == bs[i] ? 0.5f : (wins ? 1.0f : 0.0f);
    }
    return share;
}

Tensor extremum(const Tensor& a, const Tensor& b, bool is_max) {
    Tensor y = is_max ? forge::maximum(a, b) : forge::minimum(a, b);
    if (!any_requires_grad({&a, &b})) return y;
    return record(is_max ? "maximum" : "minimum", y, {&a, &b},
                  [a = detach(a), b = detach(b), is_max](const Tensor& g, InputMask) {
                      const Tensor share = winner_share(a, b, g.shape(), is_max);
                      const Tensor ga = forge::mul(g, share);
                      return std::vector<Tensor>{sum_to_shape(ga, a.shape()), sum_to_shape(forge::sub(g, ga), b.shape())};
                  });
}

}  // namespace

Tensor exp(const Tensor& x) {
    // d exp = exp: reuse the output rather than recomputing it.
    Tensor y = forge::exp(x);
    if (!any_requires_grad({&x})) return y;
    return record("exp", y, {&x}, [y = detach(y)](const Tensor& g, InputMask) {
        return std::vector<Tensor>{forge::mul(g, y)};
    });
}

Tensor log(const Tensor& x) { return unary_op(UnaryOp::Log, "log", x); }
Tensor sqrt(const Tensor& x) { return unary_op(UnaryOp::Sqrt, "sqrt", x); }
Tensor rsqrt(const Tensor& x) { return unary_op(UnaryOp::Rsqrt, "rsqrt", x); }
Tensor tanh(const Tensor& x) { return unary_op(UnaryOp::Tanh, "tanh", x); }
Tensor sigmoid(const Tensor& x) { return unary_op(UnaryOp::Sigmoid, "sigmoid", x); }
Tensor silu(const Tensor& x) { return unary_op(UnaryOp::Silu, "silu", x); }
Tensor gelu_tanh(const Tensor& x) { return unary_op(UnaryOp::GeluTanh, "gelu_tanh", x); }
Tensor gelu_erf(const Tensor& x) { return unary_op(UnaryOp::GeluErf, "gelu_erf", x); }
Tensor relu(const Tensor& x) { return unary_op(UnaryOp::Relu, "relu", x); }
Tensor neg(const Tensor& x) { return ag::mul(x, -1.0f); }
Tensor abs(const Tensor& x) { return unary_op(UnaryOp::Abs, "abs", x); }

Tensor add(const Tensor& a, const Tensor& b) {
    Tensor y = forge::add(a, b);
    if (!any_requires_grad({&a, &b})) return y;
    return record("add", y, {&a, &b}, [sa = a.shape(), sb = b.shape()](const Tensor& g, InputMask wanted) {
        return std::vector<Tensor>{wanted[0] ? sum_to_shape(g, sa) : Tensor{}, wanted[1] ? sum_to_shape(g, sb) : Tensor{}};
    });
}

Tensor sub(const Tensor& a, const Tensor& b) {
    Tensor y = forge::sub(a, b);
    if (!any_requires_grad({&a, &b})) return y;
    return record("sub", y, {&a, &b}, [sa = a.shape(), sb = b.shape()](const Tensor& g, InputMask wanted) {
        return std::vector<Tensor>{wanted[0] ? sum_to_shape(g, sa) : Tensor{},
                                   wanted[1] ? sum_to_shape(forge::neg(g), sb) : Tensor{}};
    });
}

Tensor mul(const Tensor& a, const Tensor& b) {
    Tensor y = forge::mul(a, b);
    if (!any_requires_grad({&a, &b})) return y;
    return record("mul", y, {&a, &b}, [a = detach(a), b = detach(b)](const Tensor& g, InputMask wanted) {
        return std::vector<Tensor>{wanted[0] ? sum_to_shape(forge::mul(g, b), a.shape()) : Tensor{},
                                   wanted[1] ? sum_to_shape(forge::mul(g, a), b.shape()) : Tensor{}};
    });
}

Tensor div(const Tensor& a, const Tensor& b) {
    Tensor y = forge::div(a, b);
    if (!any_requires_grad({&a, &b})) return y;
    return record("div", y, {&a, &b}, [a = detach(a), b = detach(b), y = detach(y)](const Tensor& g, InputMask wanted) {
        // d(a/b)/db = -a/b^2 = -y/b
        return std::vector<Tensor>{
            wanted[0] ? sum_to_shape(forge::div(g, b), a.shape()) : Tensor{},
            wanted[1] ? sum_to_shape(forge::neg(forge::div(forge::mul(g, y), b)), b.shape()) : Tensor{}};
    });
}

Tensor maximum(const Tensor& a, const Tensor& b) { return extremum(a, b, true); }
Tensor minimum(const Tensor& a, const Tensor& b) { return extremum(a, b, false); }

Tensor add(const Tensor& x, float c) {
    Tensor y = forge::operator+(x, c);
    if (!any_requires_grad({&x})) return y;
    return record("add_scalar", y, {&x}, [](const Tensor& g, InputMask) { return std::vector<Tensor>{g}; });
}

Tensor mul(const Tensor& x, float c) {
    Tensor y = forge::operator*(x, c);
    if (!any_requires_grad({&x})) return y;
    return record("mul_scalar", y, {&x}, [c](const Tensor& g, InputMask) {
        return std::vector<Tensor>{forge::operator*(g, c)};
    });
}

}  // namespace forge::ag
