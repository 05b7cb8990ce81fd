#include "core/ops/lstm.h"

#include "core/error.h"
#include "core/ops/check_f32.h"
#include "kernels/backend.h"
#include "kernels/lstm_cell.h"
#include "kernels/matmul.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace forge {
namespace {

struct Sizes {
    std::int64_t batch, steps, input, hidden;
    std::int64_t cols() const { return input + hidden; }  // of W and of each [x_t, h_{t-1}] row
    std::int64_t gates() const { return 4 * hidden; }
};

Sizes check_operands(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& h0, const Tensor& c0) {
    for (const auto& [t, name] : {std::pair{&x, "x"}, {&w, "w"}, {&b, "b"}, {&h0, "h0"}, {&c0, "c0"}})
        check_f32(*t, "lstm_sequence", name);
    check(x.rank() == 3, "lstm_sequence: x must be [batch, time, input], got {}", x.shape().to_string());
    const Sizes s{x.size(0), x.size(1), x.size(2), h0.rank() == 2 ? h0.size(1) : 0};
    check(s.hidden > 0 && h0.shape() == Shape{s.batch, s.hidden} && c0.shape() == h0.shape(),
          "lstm_sequence: h0 and c0 must be [batch {}, hidden], got {} and {}", s.batch, h0.shape().to_string(),
          c0.shape().to_string());
    check(w.shape() == Shape{s.gates(), s.cols()}, "lstm_sequence: w must be [4·hidden {}, input + hidden {}], got {}",
          s.gates(), s.cols(), w.shape().to_string());
    check(b.shape() == Shape{s.gates()}, "lstm_sequence: b must be [{}], got {}", s.gates(), b.shape().to_string());
    return s;
}

// out[m, n] = a[m, k] · b[k, n] through the active matmul kernel, one block on this thread.
void multiply(std::int64_t m, std::int64_t n, std::int64_t k, kernels::MatrixView<float> a,
              kernels::MatrixView<float> b, float* out, std::vector<float>& scratch) {
    scratch.resize(std::max<std::size_t>(kernels::active::matmul_scratch_floats(m, n, k), 1));
    kernels::active::matmul(kernels::MatmulF32{m, n, k, a, b, {out, n}}, scratch);
}

}  // namespace

LstmSequence lstm_sequence(const Tensor& x_in, const Tensor& w_in, const Tensor& b_in, const Tensor& h0_in,
                           const Tensor& c0_in) {
    const Sizes s = check_operands(x_in, w_in, b_in, h0_in, c0_in);
    const Tensor x = x_in.contiguous(), w = w_in.contiguous(), b = b_in.contiguous();
    const Tensor h0 = h0_in.contiguous(), c0 = c0_in.contiguous();
    const std::int64_t B = s.batch, T = s.steps, I = s.input, H = s.hidden, C = s.cols(), G = s.gates();

    LstmSequence r{Tensor::empty({B, T, 2 * H}), Tensor::empty({T, B, C}), Tensor::empty({T, B, G}),
                   Tensor::empty({T + 1, B, H})};
    const float *xs = x.data<float>(), *ws = w.data<float>(), *bs = b.data<float>();
    float *states = r.states.data<float>(), *inputs = r.inputs.data<float>(), *gates = r.gates.data<float>();
    float* cells = r.cells.data<float>();
    std::memcpy(cells, c0.data<float>(), static_cast<std::size_t>(B * H) * sizeof(float));
    std::vector<float> scratch;
    for (std::int64_t t = 0; t < T; ++t) {
        float* xh = inputs + t * B * C;
        for (std::int64_t i = 0; i < B; ++i) {
            std::memcpy(xh + i * C, xs + (i * T + t) * I, static_cast<std::size_t>(I) * sizeof(float));
            const float* h_prev = t == 0 ? h0.data<float>() + i * H : states + (i * T + t - 1) * 2 * H;
            std::memcpy(xh + i * C + I, h_prev, static_cast<std::size_t>(H) * sizeof(float));
        }
        // z[B, 4H] = [x_t, h_{t-1}] · Wᵀ  (Wᵀ(p, j) = w[j·C + p])
        float* z = gates + t * B * G;
        multiply(B, G, C, {xh, C, 1}, {ws, 1, C}, z, scratch);
        // The cell's nonlinearity (kernels/lstm_cell.h) row by row: the gates are kept
        // activated for the backward pass, c_t is written over a copy of c_{t-1}.
        std::memcpy(cells + (t + 1) * B * H, cells + t * B * H, static_cast<std::size_t>(B * H) * sizeof(float));
        for (std::int64_t i = 0; i < B; ++i) {
            float* zi = z + i * G;
            for (std::int64_t j = 0; j < G; ++j) zi[j] += bs[j];
            float* c_now = cells + ((t + 1) * B + i) * H;
            float* out = states + (i * T + t) * 2 * H;
            kernels::active::lstm_cell({zi, static_cast<std::size_t>(G)}, {c_now, static_cast<std::size_t>(H)},
                                       {out, static_cast<std::size_t>(H)}, /*fast=*/false);
            std::memcpy(out + H, c_now, static_cast<std::size_t>(H) * sizeof(float));
        }
    }
    return r;
}

LstmSequenceGrads lstm_sequence_backward(const Tensor& w_in, const LstmSequence& f, const Tensor& grad_in) {
    const Tensor w = w_in.contiguous(), grad = grad_in.contiguous();
    const std::int64_t T = f.inputs.size(0), B = f.inputs.size(1), C = f.inputs.size(2), G = f.gates.size(2);
    const std::int64_t H = G / 4, I = C - H;
    check(grad.shape() == f.states.shape(), "lstm_sequence backward: gradient {} for states {}",
          grad.shape().to_string(), f.states.shape().to_string());

    LstmSequenceGrads g{Tensor::empty({B, T, I}), Tensor::empty({G, C}), Tensor::zeros({G}), Tensor::zeros({B, H}),
                        Tensor::zeros({B, H})};
    Tensor dz_all = Tensor::empty({T, B, G});
    const float *gs = grad.data<float>(), *gates = f.gates.data<float>(), *cells = f.cells.data<float>();
    const float* ws = w.data<float>();
    float *dz_base = dz_all.data<float>(), *dx = g.x.data<float>();
    float *dh = g.h0.data<float>(), *dc = g.c0.data<float>();  // carried back step by step: dL/dh_{t}, dL/dc_{t}
    std::vector<float> dxh(static_cast<std::size_t>(B * C)), scratch;
    for (std::int64_t t = T - 1; t >= 0; --t) {
        const float* gate = gates + t * B * G;
        const float *c_now = cells + (t + 1) * B * H, *c_prev = cells + t * B * H;
        float* dz = dz_base + t * B * G;
        for (std::int64_t i = 0; i < B; ++i) {
            const float* gi = gs + (i * T + t) * 2 * H;
            const float* a = gate + i * G;
            for (std::int64_t k = 0; k < H; ++k) {
                const float in = a[k], forget = a[H + k], cand = a[2 * H + k], o = a[3 * H + k];
                const float tc = std::tanh(c_now[i * H + k]);
                const float dh_t = gi[k] + dh[i * H + k];
                const float dc_t = gi[H + k] + dc[i * H + k] + dh_t * o * (1.0f - tc * tc);
                float* d = dz + i * G;
                d[k] = dc_t * cand * in * (1.0f - in);
                d[H + k] = dc_t * c_prev[i * H + k] * forget * (1.0f - forget);
                d[2 * H + k] = dc_t * in * (1.0f - cand * cand);
                d[3 * H + k] = dh_t * tc * o * (1.0f - o);
                dc[i * H + k] = dc_t * forget;
            }
        }
        // d[x_t, h_{t-1}] [B, C] = dz [B, 4H] · W [4H, C]
        multiply(B, C, G, {dz, G, 1}, {ws, C, 1}, dxh.data(), scratch);
        for (std::int64_t i = 0; i < B; ++i) {
            std::memcpy(dx + (i * T + t) * I, dxh.data() + i * C, static_cast<std::size_t>(I) * sizeof(float));
            std::memcpy(dh + i * H, dxh.data() + i * C + I, static_cast<std::size_t>(H) * sizeof(float));
        }
    }
    // dW [4H, C] = Σ_t dz_tᵀ · [x_t, h_{t-1}]: one product over all T·B rows; db = Σ dz.
    const std::int64_t rows = T * B;
    multiply(G, C, rows, {dz_base, 1, G}, {f.inputs.data<float>(), C, 1}, g.w.data<float>(), scratch);
    float* db = g.b.data<float>();
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < G; ++j) db[j] += dz_base[r * G + j];
    return g;
}

}  // namespace forge
