#include "core/infer/row_ops.h"

#include "core/checked_math.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/binary.h"
#include "kernels/norm.h"
#include "kernels/unary.h"

#include <algorithm>
#include <cmath>

namespace forge::infer {

void rmsnorm_rows(std::span<const float> x, std::span<float> y, std::int64_t rows, std::int64_t width,
                  std::span<const float> weight, float eps) {
    ThreadPool::global().parallel_for(rows, 16, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            kernels::active::rmsnorm(x.subspan(sz(r * width), sz(width)), weight, eps, y.subspan(sz(r * width), sz(width)));
        }
    });
}

void layernorm_rows(std::span<const float> x, std::span<float> y, std::int64_t rows, std::int64_t width,
                    std::span<const float> weight, std::span<const float> bias, float eps) {
    ThreadPool::global().parallel_for(rows, 16, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            kernels::active::layernorm(x.subspan(sz(r * width), sz(width)), weight, bias, eps,
                                       y.subspan(sz(r * width), sz(width)));
        }
    });
}

void gelu_rows(std::span<float> x) {
    constexpr std::int64_t kChunk = 4096;  // values per task: the split depends on the size only
    const auto n = static_cast<std::int64_t>(x.size());
    ThreadPool::global().parallel_for((n + kChunk - 1) / kChunk, 1, [&](std::int64_t begin, std::int64_t end) {
        const auto part = x.subspan(sz(begin * kChunk), sz(std::min(end * kChunk, n) - begin * kChunk));
        kernels::active::unary(kernels::UnaryOp::GeluTanh, part, part);
    });
}

void swiglu_rows(std::span<float> gate, std::span<const float> up, std::int64_t rows, std::int64_t width) {
    ThreadPool::global().parallel_for(rows, 8, [&](std::int64_t begin, std::int64_t end) {
        const auto g = gate.subspan(sz(begin * width), sz((end - begin) * width));
        const auto u = up.subspan(sz(begin * width), g.size());
        kernels::active::unary(kernels::UnaryOp::Silu, g, g);
        kernels::active::binary(kernels::BinaryOp::Mul, g, u, g);
    });
}

// A plain loop, as ggml's: the expert widths it runs on are small next to the products around it.
void swiglu_oai_rows(std::span<float> gate, std::span<const float> up, std::int64_t rows, std::int64_t width,
                     float alpha, float limit) {
    ThreadPool::global().parallel_for(rows, 8, [&](std::int64_t begin, std::int64_t end) {
        for (auto i = sz(begin * width); i < sz(end * width); ++i) {
            const float g = std::min(gate[i], limit);
            const float u = std::clamp(up[i], -limit, limit);
            gate[i] = g / (1.0f + std::exp(alpha * -g)) * (u + 1.0f);
        }
    });
}

void rope_angles_rows(std::span<const std::int64_t> positions, const kernels::RopeFrequencies& frequencies,
                      std::int64_t half, std::span<float> cos, std::span<float> sin) {
    ThreadPool::global().parallel_for(static_cast<std::int64_t>(positions.size()), 16,
                                      [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            kernels::active::rope_angles(static_cast<double>(positions[sz(i)]), frequencies,
                                         cos.subspan(sz(i * half), sz(half)), sin.subspan(sz(i * half), sz(half)));
        }
    });
}

void rope_rows(std::span<float> rows, std::int64_t n_rows, std::int64_t n_heads, std::int64_t head_dim,
               kernels::RopeMode mode, std::span<const float> cos, std::span<const float> sin, std::int64_t half) {
    const std::int64_t width = n_heads * head_dim;
    ThreadPool::global().parallel_for(n_rows, 16, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            const auto heads = rows.subspan(sz(i * width), sz(width));
            kernels::active::rope(heads, head_dim, mode,
                                  {cos.subspan(sz(i * half), sz(half)), sin.subspan(sz(i * half), sz(half))}, heads);
        }
    });
}

}  // namespace forge::infer
