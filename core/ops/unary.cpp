#include "core/ops/unary.h"

#include "core/ops/check_f32.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"

namespace forge {
namespace {

// Elements per parallel chunk: large enough to outweigh handing a chunk to a thread.
constexpr std::int64_t kElementGrain = 1 << 16;

std::string_view name(UnaryOp op) {
    switch (op) {
        case UnaryOp::Exp: return "exp";
        case UnaryOp::Log: return "log";
        case UnaryOp::Sqrt: return "sqrt";
        case UnaryOp::Rsqrt: return "rsqrt";
        case UnaryOp::Tanh: return "tanh";
        case UnaryOp::Sigmoid: return "sigmoid";
        case UnaryOp::Silu: return "silu";
        case UnaryOp::GeluTanh: return "gelu_tanh";
        case UnaryOp::GeluErf: return "gelu_erf";
        case UnaryOp::Relu: return "relu";
        case UnaryOp::Neg: return "neg";
        case UnaryOp::Abs: return "abs";
        case UnaryOp::Identity: return "identity";
        case UnaryOp::FastTanh: return "fast_tanh";
        case UnaryOp::Hardtanh: return "hardtanh";
        case UnaryOp::LeakyRelu: return "leaky_relu";
        case UnaryOp::Hardswish: return "hardswish";
        case UnaryOp::LeakyHardtanh: return "leaky_hardtanh";
        case UnaryOp::Softsign: return "softsign";
    }
    return "unary";
}

}  // namespace

Tensor unary(UnaryOp op, const Tensor& x) {
    check_f32(x, name(op));
    const Tensor in = x.contiguous();
    Tensor out = Tensor::empty(x.shape());
    const float* src = in.data<float>();
    float* dst = out.data<float>();
    ThreadPool::global().parallel_for(x.numel(), kElementGrain, [&](std::int64_t begin, std::int64_t end) {
        const auto count = static_cast<std::size_t>(end - begin);
        kernels::active::unary(op, {src + begin, count}, {dst + begin, count});
    });
    return out;
}

Tensor exp(const Tensor& x) { return unary(UnaryOp::Exp, x); }
Tensor log(const Tensor& x) { return unary(UnaryOp::Log, x); }
Tensor sqrt(const Tensor& x) { return unary(UnaryOp::Sqrt, x); }
Tensor rsqrt(const Tensor& x) { return unary(UnaryOp::Rsqrt, x); }
Tensor tanh(const Tensor& x) { return unary(UnaryOp::Tanh, x); }
Tensor sigmoid(const Tensor& x) { return unary(UnaryOp::Sigmoid, x); }
Tensor silu(const Tensor& x) { return unary(UnaryOp::Silu, x); }
Tensor gelu_tanh(const Tensor& x) { return unary(UnaryOp::GeluTanh, x); }
Tensor gelu_erf(const Tensor& x) { return unary(UnaryOp::GeluErf, x); }
Tensor relu(const Tensor& x) { return unary(UnaryOp::Relu, x); }
Tensor neg(const Tensor& x) { return unary(UnaryOp::Neg, x); }
Tensor abs(const Tensor& x) { return unary(UnaryOp::Abs, x); }

Tensor operator-(const Tensor& x) { return neg(x); }

}  // namespace forge
