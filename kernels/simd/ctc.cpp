// CTC forward-backward in log space, a batch of extended-label positions at a time: within one
// frame every position of α (or β) depends only on the previous (next) frame, so the
// recursion vectorizes along s. Same equations as kernels/scalar/ctc.cpp; the frame loops are
// kernels/ctc_frames.h.
#include "kernels/ctc.h"

#include "kernels/ctc_frames.h"
#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {
namespace {

using ctc_detail::kLogZero;
using ctc_detail::ScratchRows;

// row[start, start + kLanes) of a row of length n, -inf outside [0, n): the shifted reads of
// the recursion (s - 2, s - 1, s + 1, s + 2) and the ragged tail all go through here.
Batch load_log(const float* row, std::ptrdiff_t start, std::size_t n) {
    if (start >= 0 && static_cast<std::size_t>(start) + kLanes <= n) return Batch::load_unaligned(row + start);
    alignas(64) float buffer[kLanes];
    for (std::size_t lane = 0; lane < kLanes; ++lane) {
        const std::ptrdiff_t i = start + static_cast<std::ptrdiff_t>(lane);
        buffer[lane] = i >= 0 && static_cast<std::size_t>(i) < n ? row[i] : kLogZero;
    }
    return Batch::load_aligned(buffer);
}

void store_row(Batch v, float* row, std::size_t start, std::size_t n) {
    if (start + kLanes <= n) v.store_unaligned(row + start);
    else store_tail(v, row + start, n - start);
}

// log(exp(a) + exp(b) + exp(c)) lane by lane; all -inf lanes stay -inf (shift 0, log(0)).
Batch log_sum_exp3(Batch a, Batch b, Batch c) {
    const Batch m = xsimd::max(xsimd::max(a, b), c);
    const Batch shift = xsimd::select(m == Batch(kLogZero), Batch(0.0f), m);
    return shift + xsimd::log(xsimd::exp(a - shift) + xsimd::exp(b - shift) + xsimd::exp(c - shift));
}

void alpha_step(const float* prev, float* cur, const ScratchRows& rows, std::size_t length) {
    for (std::size_t s = 0; s < length; s += kLanes) {
        const auto i = static_cast<std::ptrdiff_t>(s);
        const Batch skipped = load_log(prev, i - 2, length) + load_log(rows.skip.data(), i, length);
        const Batch sum = log_sum_exp3(load_log(prev, i, length), load_log(prev, i - 1, length), skipped);
        store_row(sum + load_log(rows.emit.data(), i, length), cur, s, length);
    }
}

void beta_step(const float* next, float* cur, const ScratchRows& rows, std::size_t length) {
    for (std::size_t s = 0; s < length; s += kLanes) {
        const auto i = static_cast<std::ptrdiff_t>(s);
        const Batch skipped = load_log(next, i + 2, length) + load_log(rows.skip.data(), i + 2, length);
        const Batch sum = log_sum_exp3(load_log(next, i, length), load_log(next, i + 1, length), skipped);
        store_row(sum + load_log(rows.emit.data(), i, length), cur, s, length);
    }
}

// γ_t(s) = exp(x_s) / Σ_s exp(x_s), x_s = log α_t(s) + log β_t(s) - e_t(s).
void posteriors(const float* alpha, const float* beta, const ScratchRows& rows, std::size_t length) {
    float* gamma = rows.gamma.data();
    Batch peak(kLogZero);
    for (std::size_t s = 0; s < length; s += kLanes) {
        const auto i = static_cast<std::ptrdiff_t>(s);
        const Batch both = load_log(alpha, i, length) + load_log(beta, i, length);
        const Batch x = xsimd::select(both == Batch(kLogZero), both, both - load_log(rows.emit.data(), i, length));
        peak = xsimd::max(peak, x);
        store_row(x, gamma, s, length);
    }
    const Batch shift(max_lanes(peak));
    Batch total(0.0f);
    for (std::size_t s = 0; s < length; s += kLanes) {
        const Batch e = xsimd::exp(load_log(gamma, static_cast<std::ptrdiff_t>(s), length) - shift);
        total += e;  // the tail's lanes load -inf: exp gives 0
        store_row(e, gamma, s, length);
    }
    const Batch scale(1.0f / sum_lanes(total));
    for (std::size_t s = 0; s < length; s += kLanes)
        store_row(load_log(gamma, static_cast<std::ptrdiff_t>(s), length) * scale, gamma, s, length);
}

}  // namespace

float ctc_alpha(const CtcSequence& seq, std::span<float> log_alpha, std::span<float> scratch) noexcept {
    return ctc_detail::run_alpha(seq, log_alpha, scratch, alpha_step, [](float a, float b) {
        return log_sum_exp3(Batch(a), Batch(b), Batch(kLogZero)).get(0);
    });
}

void ctc_gradient(const CtcSequence& seq, std::span<const float> log_alpha, float nll, std::span<float> log_beta,
                  std::span<float> scratch, std::span<float> grad) noexcept {
    ctc_detail::run_gradient(seq, log_alpha, nll, log_beta, scratch, grad, beta_step, posteriors);
}

}  // namespace forge::kernels::simd
