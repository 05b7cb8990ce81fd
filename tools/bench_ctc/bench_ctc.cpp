// bench_ctc: the CTC kernels' forward + backward on one sequence, scalar against simd, same
// inputs, best of 30 repetitions (simd builds only: both backends are linked there).
//
//   ./build/tools/bench_ctc
//
// Shapes: frames T after subsampling, labels S, classes C (29: characters + blank; 257: a
// 256-piece vocabulary + blank).
#include "kernels/ctc.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using namespace forge::kernels;

struct Shape {
    std::size_t frames, labels, classes;
};

template <typename Alpha, typename Gradient>
double best_seconds(Alpha alpha_kernel, Gradient gradient_kernel, const CtcSequence& seq) {
    const std::size_t length = ctc_extended_length(seq.labels.size());
    std::vector<float> alpha(seq.frames * length), beta(seq.frames * length);
    std::vector<float> scratch(ctc_scratch_floats(seq.labels.size())), grad(seq.frames * seq.classes);
    double best = 1e30;
    for (int rep = 0; rep < 30; ++rep) {
        const auto start = std::chrono::steady_clock::now();
        const float nll = alpha_kernel(seq, alpha, scratch);
        gradient_kernel(seq, alpha, nll, beta, scratch, grad);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

// Log-softmax rows of uniform(-3, 3) logits and labels 1..C-1, from a fixed seed.
void random_sequence(const Shape& s, std::mt19937& rng, std::vector<float>& log_probs, std::vector<std::int32_t>& labels) {
    std::uniform_real_distribution<float> logit(-3.0f, 3.0f);
    log_probs.resize(s.frames * s.classes);
    for (float& v : log_probs) v = logit(rng);
    for (std::size_t t = 0; t < s.frames; ++t) {
        double sum = 0.0;
        for (std::size_t k = 0; k < s.classes; ++k) sum += std::exp(log_probs[t * s.classes + k]);
        for (std::size_t k = 0; k < s.classes; ++k) log_probs[t * s.classes + k] -= static_cast<float>(std::log(sum));
    }
    labels.resize(s.labels);
    for (auto& l : labels) l = static_cast<std::int32_t>(1 + rng() % (s.classes - 1));
}

}  // namespace

int main() {
    std::mt19937 rng(1);
    std::printf("%6s %6s %6s %12s %12s %8s\n", "T", "S", "C", "scalar us", "simd us", "ratio");
    for (const Shape& s : {Shape{100, 40, 29}, Shape{250, 100, 29}, Shape{250, 60, 257}, Shape{500, 200, 29}}) {
        std::vector<float> log_probs;
        std::vector<std::int32_t> labels;
        random_sequence(s, rng, log_probs, labels);
        const CtcSequence seq{log_probs.data(), s.frames, s.classes, labels, 0};
        const double a = best_seconds(scalar::ctc_alpha, scalar::ctc_gradient, seq);
        const double b = best_seconds(simd::ctc_alpha, simd::ctc_gradient, seq);
        std::printf("%6zu %6zu %6zu %12.1f %12.1f %7.2fx\n", s.frames, s.labels, s.classes, a * 1e6, b * 1e6, a / b);
    }
}
