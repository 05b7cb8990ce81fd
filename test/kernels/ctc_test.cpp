// The CTC kernels: the scalar ones against a brute-force sum over every alignment in double
// precision (small enough to enumerate), and the simd ones against the scalar ones in simd
// builds at label counts that leave every tail of the extended sequence.
#include "kernels/ctc.h"

#include "test/kernels/test_data.h"

#include <limits>

namespace forge::kernels {
namespace {

using testing::close;
using testing::uniform;

// Log-softmax rows of random logits: what a model feeds the loss.
std::vector<float> log_prob_rows(std::size_t frames, std::size_t classes, std::uint32_t seed) {
    std::vector<float> x = uniform(frames * classes, -3.0f, 3.0f, seed);
    for (std::size_t t = 0; t < frames; ++t) {
        double sum = 0.0;
        for (std::size_t k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(x[t * classes + k]));
        for (std::size_t k = 0; k < classes; ++k) x[t * classes + k] -= static_cast<float>(std::log(sum));
    }
    return x;
}

// Collapse an alignment: merge repeats, then drop blanks.
std::vector<std::int32_t> collapse(const std::vector<std::int32_t>& path, std::int32_t blank) {
    std::vector<std::int32_t> out;
    for (std::size_t t = 0; t < path.size(); ++t) {
        if (path[t] != blank && (t == 0 || path[t] != path[t - 1])) out.push_back(path[t]);
    }
    return out;
}

struct BruteForce {
    double nll;
    std::vector<double> grad;  // d nll / d log_probs
};

// Every one of the C^T alignments: p = Σ p(π) over the ones that collapse to the labels, and
// d(-log p)/d log y_t(k) = -Σ p(π) [π_t = k] / p.
BruteForce enumerate(const std::vector<float>& lp, std::size_t frames, std::size_t classes,
                     const std::vector<std::int32_t>& labels, std::int32_t blank) {
    std::vector<std::int32_t> path(frames, 0);
    double total = 0.0;
    std::vector<double> occupancy(frames * classes, 0.0);
    while (true) {
        if (collapse(path, blank) == labels) {
            double log_p = 0.0;
            for (std::size_t t = 0; t < frames; ++t) log_p += lp[t * classes + static_cast<std::size_t>(path[t])];
            total += std::exp(log_p);
            for (std::size_t t = 0; t < frames; ++t) occupancy[t * classes + static_cast<std::size_t>(path[t])] += std::exp(log_p);
        }
        std::size_t t = 0;  // next alignment, as a base-C counter
        while (t < frames && ++path[t] == static_cast<std::int32_t>(classes)) path[t++] = 0;
        if (t == frames) break;
    }
    BruteForce out{-std::log(total), std::vector<double>(frames * classes)};
    for (std::size_t i = 0; i < occupancy.size(); ++i) out.grad[i] = -occupancy[i] / total;
    return out;
}

struct CtcRun {
    float nll;
    std::vector<float> grad;
};

template <typename Alpha, typename Gradient>
CtcRun run(Alpha alpha_kernel, Gradient gradient_kernel, const std::vector<float>& lp, std::size_t frames,
        std::size_t classes, const std::vector<std::int32_t>& labels, std::int32_t blank) {
    const CtcSequence seq{lp.data(), frames, classes, labels, blank};
    const std::size_t length = ctc_extended_length(labels.size());
    std::vector<float> alpha(frames * length), beta(frames * length), scratch(ctc_scratch_floats(labels.size()));
    CtcRun r{alpha_kernel(seq, alpha, scratch), std::vector<float>(frames * classes, 123.0f)};
    gradient_kernel(seq, alpha, r.nll, beta, scratch, r.grad);
    return r;
}

CtcRun run_scalar(const std::vector<float>& lp, std::size_t frames, std::size_t classes,
               const std::vector<std::int32_t>& labels, std::int32_t blank) {
    return run(scalar::ctc_alpha, scalar::ctc_gradient, lp, frames, classes, labels, blank);
}

struct Case {
    std::size_t frames, classes;
    std::vector<std::int32_t> labels;
    std::int32_t blank;
};

// Repeated labels (no skip between them), a blank that is not class 0, no labels, a sequence
// that needs every frame (T = S + repeats).
const std::vector<Case> kSmallCases = {
    {5, 3, {1, 2}, 0}, {6, 3, {1, 1, 2}, 0}, {4, 4, {0, 2}, 3}, {3, 2, {}, 0},
    {5, 3, {1, 1, 1}, 0}, {1, 2, {1}, 0}, {7, 3, {2, 1, 2}, 0},
};

// Measured over kSmallCases: nll 9.7e-8 relative, gradient 1.9e-7 absolute (posteriors are in
// [0, 1]). Bounds: 10x.
TEST(Ctc, ScalarMatchesEveryAlignmentSummed) {
    std::uint32_t seed = 1;
    for (const Case& c : kSmallCases) {
        const auto lp = log_prob_rows(c.frames, c.classes, seed++);
        const BruteForce want = enumerate(lp, c.frames, c.classes, c.labels, c.blank);
        const CtcRun got = run_scalar(lp, c.frames, c.classes, c.labels, c.blank);
        EXPECT_TRUE(close(got.nll, want.nll, 9.7e-7)) << "case " << seed;
        for (std::size_t i = 0; i < want.grad.size(); ++i)
            ASSERT_TRUE(close(got.grad[i], want.grad[i], 0.0, 1.9e-6)) << "case " << seed << " element " << i;
    }
}

// Each frame's posteriors are normalised by their own sum (kernels/ctc.h): measured |sum + 1|
// 1.7e-7 over 40 frames. Bound: 10x.
TEST(Ctc, PosteriorsSumToOnePerFrame) {
    const auto lp = log_prob_rows(40, 6, 9);
    const CtcRun got = run_scalar(lp, 40, 6, {1, 2, 2, 5, 3, 1, 4}, 0);
    for (std::size_t t = 0; t < 40; ++t) {
        double sum = 0.0;
        for (std::size_t k = 0; k < 6; ++k) sum += got.grad[t * 6 + k];
        EXPECT_NEAR(sum, -1.0, 1.7e-6) << "frame " << t;
    }
}

TEST(Ctc, NoAlignmentFitsGivesInfinityAndZeroGradient) {
    // Three labels with a repeat need at least four frames.
    const auto lp = log_prob_rows(3, 3, 4);
    const CtcRun got = run_scalar(lp, 3, 3, {1, 1, 2}, 0);
    EXPECT_EQ(got.nll, std::numeric_limits<float>::infinity());
    for (float g : got.grad) EXPECT_EQ(g, 0.0f);
}

#if defined(FORGE_BACKEND_SIMD)
// Measured max over these cases (Xeon AVX-512, xsimd's exp/log): nll equal, gradient 2.9e-6
// absolute (log-space values near -50 carry ulps of 4e-6 relative into the posteriors).
// Bounds: 10x, and 1e-7 (about one ulp) for the nll.
constexpr double kNllBound = 1e-7, kGradBound = 2.9e-5;

TEST(CtcSimd, MatchesScalarAtEveryTail) {
    std::uint32_t seed = 100;
    for (std::size_t labels : {0, 1, 3, 4, 7, 8, 11, 20, 40}) {
        for (std::size_t frames : {2 * labels + 1, 3 * labels + 5, std::size_t{90}}) {
            const std::size_t classes = 29;
            std::vector<std::int32_t> target(labels);
            for (std::size_t j = 0; j < labels; ++j) target[j] = static_cast<std::int32_t>(1 + (j * 7 + j / 3) % 28);
            if (labels > 4) target[3] = target[2];  // a repeat
            const auto lp = log_prob_rows(frames, classes, seed++);
            const CtcRun want = run_scalar(lp, frames, classes, target, 0);
            const CtcRun got = run(simd::ctc_alpha, simd::ctc_gradient, lp, frames, classes, target, 0);
            ASSERT_TRUE(close(got.nll, want.nll, kNllBound)) << labels << " labels, " << frames << " frames";
            for (std::size_t i = 0; i < want.grad.size(); ++i)
                ASSERT_TRUE(close(got.grad[i], want.grad[i], 0.0, kGradBound))
                    << labels << " labels, " << frames << " frames, element " << i;
        }
    }
}

TEST(CtcSimd, NoAlignmentFitsGivesInfinityAndZeroGradient) {
    const auto lp = log_prob_rows(3, 3, 4);
    const CtcRun got = run(simd::ctc_alpha, simd::ctc_gradient, lp, 3, 3, {1, 1, 2}, 0);
    EXPECT_EQ(got.nll, std::numeric_limits<float>::infinity());
    for (float g : got.grad) EXPECT_EQ(g, 0.0f);
}
#endif

}  // namespace
}  // namespace forge::kernels
