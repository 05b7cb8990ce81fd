#include "core/ops/rope.h"

#include "test/core/ops/reference.h"

namespace forge {
namespace {

using testing::expect_close;
using testing::expect_error;
using testing::random_tensor;

// x [batch, seq, heads, dim] rotated directly from the definition, positions [batch, seq].
std::vector<double> reference(const Tensor& x4, const std::vector<std::int64_t>& positions, const RopeConfig& c) {
    const std::int64_t batch = x4.size(0), seq = x4.size(1), heads = x4.size(2), dim = x4.size(3);
    const std::int64_t n_rot = c.n_rot == 0 ? dim : c.n_rot;
    const std::vector<float> v = x4.contiguous().to_vector();
    std::vector<double> out(v.begin(), v.end());
    for (std::int64_t e = 0; e < batch * seq; ++e) {
        const double pos = static_cast<double>(positions[static_cast<std::size_t>(e)]);
        for (std::int64_t h = 0; h < heads; ++h) {
            for (std::int64_t i = 0; i < n_rot / 2; ++i) {
                const double theta = pos * c.freq_scale * std::pow(double(c.theta_base), -2.0 * double(i) / double(n_rot));
                const std::int64_t base = (e * heads + h) * dim;
                const auto p = static_cast<std::size_t>(base + (c.mode == RopeMode::Normal ? 2 * i : i));
                const auto q = static_cast<std::size_t>(base + (c.mode == RopeMode::Normal ? 2 * i + 1 : i + n_rot / 2));
                out[p] = v[p] * std::cos(theta) - v[q] * std::sin(theta);
                out[q] = v[p] * std::sin(theta) + v[q] * std::cos(theta);
            }
        }
    }
    return out;
}

TEST(RopeOps, MatchesDefinitionInBothModes) {
    const Tensor x = random_tensor({5, 3, 16}, -1, 1, 1);
    const std::vector<std::int32_t> pos = {0, 1, 2, 100, 7};
    const Tensor positions = Tensor::from(std::span<const std::int32_t>(pos), {5});
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        RopeConfig c;
        c.mode = mode;
        expect_close(rope(x, positions, c), reference(x.unsqueeze(0), {0, 1, 2, 100, 7}, c), 0, 1e-6, "full");
        c.n_rot = 8;
        c.theta_base = 1e6f;
        c.freq_scale = 0.5f;
        expect_close(rope(x, positions, c), reference(x.unsqueeze(0), {0, 1, 2, 100, 7}, c), 0, 1e-6, "partial");
    }
}

TEST(RopeOps, BatchedWithSharedOrPerBatchPositions) {
    const Tensor x = random_tensor({2, 3, 2, 64}, -1, 1, 2);
    const std::vector<std::int64_t> shared = {5, 6, 7};
    const std::vector<std::int64_t> per_batch = {0, 1, 2, 40, 41, 42};
    RopeConfig c;
    c.mode = RopeMode::Neox;
    expect_close(rope(x, Tensor::from(std::span<const std::int64_t>(shared), {3}), c),
                 reference(x, {5, 6, 7, 5, 6, 7}, c), 0, 1e-6, "shared");
    expect_close(rope(x, Tensor::from(std::span<const std::int64_t>(per_batch), {2, 3}), c), reference(x, per_batch, c),
                 0, 1e-6, "per batch");
}

TEST(RopeOps, InverseUndoesTheRotationAndStridedInput) {
    const Tensor x = random_tensor({4, 8, 2, 32}, -1, 1, 3).select(1, 3);  // [4, 2, 32] view, not contiguous
    const std::vector<std::int32_t> pos = {3, 1000, 20000, 9};
    const Tensor positions = Tensor::from(std::span<const std::int32_t>(pos), {4});
    RopeConfig c;
    const Tensor rotated = rope(x, positions, c);
    c.inverse = true;
    const Tensor back = rope(rotated, positions, c);
    const std::vector<float> original = x.to_vector();
    expect_close(back, std::vector<double>(original.begin(), original.end()), 0, 2e-6);
}

TEST(RopeOps, ErrorsNameTheProblem) {
    const Tensor x = Tensor::zeros({3, 2, 8});
    const Tensor pos = Tensor::zeros({3}, DType::I32);
    expect_error([&] { rope(x, Tensor::zeros({4}, DType::I32)); }, "rope: positions must have shape [3], got [4]");
    expect_error([&] { rope(x, Tensor::zeros({3})); }, "rope: positions must be i32 or i64, got f32");
    expect_error([&] { rope(Tensor::zeros({3, 8}), pos); }, "rope: x must be [seq, heads, head_dim]");
    RopeConfig odd;
    odd.n_rot = 5;
    expect_error([&] { rope(x, pos, odd); }, "rope: n_rot must be even and in [2, head_dim = 8], got 5");
}

}  // namespace
}  // namespace forge
