#include "core/infer/row_ops.h"

#include "core/checked_math.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/binary.h"
#include "kernels/convert.h"
#include "kernels/norm.h"
#include "kernels/reduce.h"
#include "kernels/unary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

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

namespace {

// ggml's GELU table, as ggml_cpu_init fills it: for every f16 value x, GELU's tanh form in
// float, 0.5 x (1 + tanhf(sqrt(2/pi) x (1 + 0.044715 x^2))), rounded to f16, with the inner
// 1 + 0.044715 x^2 fused as llama.cpp's FMA builds compile it. In the negative tail 1 + tanh
// loses digits to cancellation (the kernels' sigmoid form does not), so 274 entries in
// (-10, 10) differ from that form's: llama.cpp reads these, so forge reads the same ones
// (docs/LLM.md, "Gemma 3 parity"; test/core/infer/geglu_test.cpp checks every entry).
const std::vector<std::uint16_t>& ggml_gelu_table() {
    static const std::vector<std::uint16_t> table = [] {
        constexpr std::size_t kEntries = std::size_t{1} << 16;
        std::vector<std::uint16_t> bits(kEntries);
        for (std::size_t i = 0; i < kEntries; ++i) bits[i] = static_cast<std::uint16_t>(i);
        std::vector<float> x(kEntries);
        kernels::active::f16_to_f32(std::span<const std::uint16_t>(bits), x);
        constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f, kCubic = 0.044715f;
        for (float& v : x) v = 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * v * std::fma(kCubic * v, v, 1.0f)));
        kernels::active::f32_to_f16(std::span<const float>(x), bits);
        return bits;
    }();
    return table;
}

// GELU through ggml's f16 table (ggml_vec_geglu_f32 with GGML_GELU_FP16): x rounded to f16 and
// looked up; 0 at or below -10, x itself at or above 10. A stack chunk at a time.
void gelu_f16_table(std::span<float> x) {
    constexpr std::size_t kChunk = 256;
    const std::vector<std::uint16_t>& table = ggml_gelu_table();
    std::array<std::uint16_t, kChunk> halves;
    std::array<float, kChunk> original;
    for (std::size_t at = 0; at < x.size(); at += kChunk) {
        const auto part = x.subspan(at, std::min(kChunk, x.size() - at));
        const auto bits = std::span(halves).first(part.size());
        std::copy(part.begin(), part.end(), original.begin());
        kernels::active::f32_to_f16(std::span<const float>(part), bits);
        for (std::uint16_t& b : bits) b = table[b];
        kernels::active::f16_to_f32(std::span<const std::uint16_t>(bits), part);
        for (std::size_t i = 0; i < part.size(); ++i) {
            if (original[i] <= -10.0f) part[i] = 0.0f;
            if (original[i] >= 10.0f) part[i] = original[i];
        }
    }
}

}  // namespace

void geglu_rows(std::span<float> gate, std::span<const float> up, std::int64_t rows, std::int64_t width) {
    ThreadPool::global().parallel_for(rows, 8, [&](std::int64_t begin, std::int64_t end) {
        const auto g = gate.subspan(sz(begin * width), sz((end - begin) * width));
        gelu_f16_table(g);
        kernels::active::binary(kernels::BinaryOp::Mul, g, up.subspan(sz(begin * width), g.size()), g);
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

void argmax_rows(std::span<const float> x, std::int64_t rows, std::int64_t width, std::span<std::int64_t> out) {
    check(x.size() >= sz(rows * width) && out.size() >= sz(rows), "argmax_rows: {} values and {} outputs cannot hold {} rows of {}",
          x.size(), out.size(), rows, width);
    ThreadPool::global().parallel_for(rows, 1, [&](std::int64_t begin, std::int64_t end) {
        kernels::active::argmax(x.data() + begin * width, kernels::ReduceLayout{end - begin, width, 1, 1}, out.data() + begin);
    });
}

}  // namespace forge::infer
