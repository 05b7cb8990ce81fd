#include "core/ops/norm.h"

#include "test/core/ops/reference.h"

namespace forge {
namespace {

using testing::expect_close;
using testing::expect_error;
using testing::random_tensor;

std::vector<double> reference(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, bool layer) {
    const std::int64_t dim = x.size(-1);
    const std::vector<float> v = x.contiguous().to_vector();
    const std::vector<float> w = weight.defined() ? weight.to_vector() : std::vector<float>(dim, 1.0f);
    const std::vector<float> b = bias.defined() ? bias.to_vector() : std::vector<float>(dim, 0.0f);
    std::vector<double> out;
    for (std::int64_t r = 0; r < x.numel() / dim; ++r) {
        auto at = [&](std::int64_t j) { return static_cast<double>(v[static_cast<std::size_t>(r * dim + j)]); };
        double mean = 0, squares = 0;
        if (layer) {
            for (std::int64_t j = 0; j < dim; ++j) mean += at(j);
            mean /= static_cast<double>(dim);
        }
        for (std::int64_t j = 0; j < dim; ++j) squares += (at(j) - mean) * (at(j) - mean);
        const double scale = 1 / std::sqrt(squares / static_cast<double>(dim) + eps);
        for (std::int64_t j = 0; j < dim; ++j) out.push_back((at(j) - mean) * scale * w[static_cast<std::size_t>(j)] + b[static_cast<std::size_t>(j)]);
    }
    return out;
}

TEST(NormOps, RmsnormMatchesDoublePrecision) {
    const Tensor x = random_tensor({3, 5, 257}, -3, 3, 1);
    const Tensor w = random_tensor({257}, 0.5f, 1.5f, 2);
    expect_close(rmsnorm(x, w, 1e-6f), reference(x, w, {}, 1e-6, false), 1e-5, 1e-6, "weighted");
    expect_close(rmsnorm(x, Tensor(), 1e-5f), reference(x, {}, {}, 1e-5, false), 1e-5, 1e-6, "unweighted");
}

TEST(NormOps, LayernormMatchesDoublePrecision) {
    const Tensor x = random_tensor({4, 1000}, 5, 9, 3);
    const Tensor w = random_tensor({1000}, 0.5f, 1.5f, 4), b = random_tensor({1000}, -1, 1, 5);
    expect_close(layernorm(x, w, b, 1e-5f), reference(x, w, b, 1e-5, true), 1e-5, 1e-5, "affine");
    expect_close(layernorm(x, Tensor(), Tensor(), 1e-5f), reference(x, {}, {}, 1e-5, true), 1e-5, 1e-5, "plain");
    expect_close(layernorm(x, w, Tensor(), 1e-5f), reference(x, w, {}, 1e-5, true), 1e-5, 1e-5, "weight only");
}

TEST(NormOps, StridedInputAndManyRows) {
    const Tensor x = random_tensor({64, 300}, -2, 2, 6).transpose(0, 1);  // [300, 64]
    expect_close(rmsnorm(x, Tensor()), reference(x, {}, {}, 1e-6, false), 1e-5, 1e-6, "transposed");
    const Tensor w = random_tensor({64}, -1, 1, 7).broadcast_to({2, 64}).select(0, 1);  // a [64] view
    expect_close(rmsnorm(x, w), reference(x, w, {}, 1e-6, false), 1e-5, 1e-6, "weight view");
}

TEST(NormOps, ErrorsNameTheProblem) {
    expect_error([] { rmsnorm(Tensor::zeros({2, 8}), Tensor::zeros({7})); },
                 "rmsnorm: weight must have shape [8] to match the last axis, got [7]");
    expect_error([] { layernorm(Tensor::zeros({2, 8}), Tensor(), Tensor::zeros({8}, DType::F16)); },
                 "layernorm: bias must be f32, got f16");
    expect_error([] { rmsnorm(Tensor::zeros({2}), Tensor(), -1.0f); }, "rmsnorm: eps must be >= 0");
}

}  // namespace
}  // namespace forge
