#include "core/ops/norm.h"

#include "core/ops/check_f32.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/norm.h"

namespace forge {
namespace {

constexpr std::int64_t kElementGrain = 1 << 16;

// An optional per-feature vector (weight or bias): undefined, or f32 [dim]. Returns its
// contiguous values, or an empty span when it is absent.
std::span<const float> feature_vector(const Tensor& v, Tensor& holder, std::int64_t dim, std::string_view op,
                                      std::string_view what) {
    if (!v.defined()) return {};
    check_f32(v, op, what);
    check(v.rank() == 1 && v.size(0) == dim, "{}: {} must have shape [{}] to match the last axis, got {}", op, what,
          dim, v.shape().to_string());
    holder = v.contiguous();
    return holder.span<float>();
}

// Runs row(x row, y row) over every row of the last axis, in parallel.
template <typename Row>
Tensor normalize_rows(const Tensor& x, Row row) {
    const Tensor in = x.contiguous();
    Tensor out = Tensor::empty(x.shape());
    if (x.numel() == 0) return out;
    const std::int64_t dim = x.size(-1);
    const float* src = in.data<float>();
    float* dst = out.data<float>();
    ThreadPool::global().parallel_for(x.numel() / dim, std::max<std::int64_t>(1, kElementGrain / dim),
                                      [&](std::int64_t begin, std::int64_t end) {
                                          for (std::int64_t r = begin; r < end; ++r) {
                                              row(std::span<const float>(src + r * dim, static_cast<std::size_t>(dim)),
                                                  std::span<float>(dst + r * dim, static_cast<std::size_t>(dim)));
                                          }
                                      });
    return out;
}

void check_input(const Tensor& x, float eps, std::string_view op) {
    check_f32(x, op);
    check(x.rank() >= 1, "{}: needs at least one axis to normalize, got a rank-0 tensor", op);
    check(eps >= 0.0f, "{}: eps must be >= 0, got {}", op, eps);
}

}  // namespace

Tensor rmsnorm(const Tensor& x, const Tensor& weight, float eps) {
    check_input(x, eps, "rmsnorm");
    Tensor weight_holder;
    const auto w = feature_vector(weight, weight_holder, x.size(-1), "rmsnorm", "weight");
    return normalize_rows(x, [&](std::span<const float> in, std::span<float> out) {
        kernels::active::rmsnorm(in, w, eps, out);
    });
}

Tensor layernorm(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps) {
    check_input(x, eps, "layernorm");
    Tensor weight_holder, bias_holder;
    const auto w = feature_vector(weight, weight_holder, x.size(-1), "layernorm", "weight");
    const auto b = feature_vector(bias, bias_holder, x.size(-1), "layernorm", "bias");
    return normalize_rows(x, [&](std::span<const float> in, std::span<float> out) {
        kernels::active::layernorm(in, w, b, eps, out);
    });
}

}  // namespace forge
