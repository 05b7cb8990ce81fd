#include "core/ops/binary.h"

#include "test/core/ops/reference.h"

namespace forge {
namespace {

using testing::expect_close;
using testing::expect_error;
using testing::random_tensor;

// The naive broadcast: for every output index, the matching (possibly repeated) inputs.
std::vector<double> reference(const Tensor& a, const Tensor& b, double (*f)(double, double)) {
    const Shape shape = broadcast_shapes(a.shape(), b.shape());
    const Tensor ab = a.broadcast_to(shape), bb = b.broadcast_to(shape);
    std::vector<double> out;
    std::vector<std::int64_t> index(static_cast<std::size_t>(shape.rank()), 0);
    for (std::int64_t n = 0; n < shape.product(); ++n) {
        out.push_back(f(ab.at(index), bb.at(index)));
        for (int d = shape.rank() - 1; d >= 0; --d) {
            if (++index[static_cast<std::size_t>(d)] < shape[d]) break;
            index[static_cast<std::size_t>(d)] = 0;
        }
    }
    return out;
}

double add_ref(double a, double b) { return a + b; }
double sub_ref(double a, double b) { return a - b; }
double mul_ref(double a, double b) { return a * b; }
double div_ref(double a, double b) { return a / b; }
double max_ref(double a, double b) { return std::max(a, b); }
double min_ref(double a, double b) { return std::min(a, b); }

void expect_all_ops(const Tensor& a, const Tensor& b, const std::string& what) {
    // One float operation each: correctly rounded, so within half an ulp of the double result.
    expect_close(add(a, b), reference(a, b, add_ref), 6e-8, 0, what + " add");
    expect_close(sub(a, b), reference(a, b, sub_ref), 6e-8, 1e-12, what + " sub");
    expect_close(mul(a, b), reference(a, b, mul_ref), 6e-8, 0, what + " mul");
    expect_close(div(a, b), reference(a, b, div_ref), 6e-8, 0, what + " div");
    expect_close(maximum(a, b), reference(a, b, max_ref), 0, 0, what + " maximum");
    expect_close(minimum(a, b), reference(a, b, min_ref), 0, 0, what + " minimum");
}

TEST(BinaryOps, SameShape) {
    expect_all_ops(random_tensor({4, 33}, -5, 5, 1), random_tensor({4, 33}, 0.5f, 5, 2), "same shape");
}

TEST(BinaryOps, BroadcastingFollowsNumPyRules) {
    const Tensor a = random_tensor({3, 1, 5}, -5, 5, 3);
    const Tensor b = random_tensor({4, 1}, 0.5f, 5, 4);
    EXPECT_EQ(add(a, b).shape(), Shape({3, 4, 5}));
    expect_all_ops(a, b, "[3,1,5] with [4,1]");
    expect_all_ops(random_tensor({7, 9}, -1, 1, 5), random_tensor({9}, 0.5f, 2, 6), "row vector");
    expect_all_ops(random_tensor({7, 9}, -1, 1, 5), random_tensor({7, 1}, 0.5f, 2, 6), "column vector");
    expect_all_ops(random_tensor({2, 3}, -1, 1, 7), Tensor::full(Shape(), 1.5f), "rank-0");
    expect_all_ops(Tensor::full({1}, 3.0f), random_tensor({2, 3}, 0.5f, 1, 8), "scalar first");
}

TEST(BinaryOps, StridedAndBroadcastViews) {
    const Tensor base = random_tensor({8, 6}, -3, 3, 9);
    const Tensor transposed = base.transpose(0, 1);        // [6, 8], inner stride 6
    const Tensor other = random_tensor({6, 8}, 0.5f, 3, 10);
    expect_all_ops(transposed, other, "transposed first");
    expect_all_ops(other, transposed, "transposed second");
    expect_all_ops(transposed.narrow(1, 2, 3), random_tensor({6, 1}, 1, 2, 11), "narrowed and broadcast");
    // An already-broadcast view as input.
    const Tensor expanded = random_tensor({1, 8}, -1, 1, 12).broadcast_to({5, 8});
    expect_all_ops(expanded, random_tensor({5, 8}, 1, 2, 13), "broadcast view");
    // A size-1 last axis with a strided outer axis.
    const Tensor column = random_tensor({5, 3}, -1, 1, 14).narrow(1, 1, 1);  // [5, 1], strides [3, 1]
    expect_all_ops(column, random_tensor({5, 1}, 1, 2, 15), "strided column");
}

TEST(BinaryOps, LargeBroadcastSplitsRows) {
    const Tensor a = random_tensor({300, 1000}, -1, 1, 16);
    const Tensor b = random_tensor({1000}, 1, 2, 17);
    expect_close(mul(a, b), reference(a, b, mul_ref), 6e-8, 0);
    const Tensor long_a = random_tensor({200003}, -1, 1, 18);
    expect_close(long_a + 2.0f, reference(long_a, Tensor::full(Shape(), 2.0f), add_ref), 6e-8, 1e-12);
}

TEST(BinaryOps, FloatOverloads) {
    const Tensor x = Tensor::from({1, 2, 4}, {3});
    EXPECT_EQ((x + 1.0f).to_vector(), (std::vector<float>{2, 3, 5}));
    EXPECT_EQ((x - 1.0f).to_vector(), (std::vector<float>{0, 1, 3}));
    EXPECT_EQ((2.0f * x).to_vector(), (std::vector<float>{2, 4, 8}));
    EXPECT_EQ((x / 2.0f).to_vector(), (std::vector<float>{0.5f, 1, 2}));
    EXPECT_EQ((1.0f - x).to_vector(), (std::vector<float>{0, -1, -3}));
    EXPECT_EQ((4.0f / x).to_vector(), (std::vector<float>{4, 2, 1}));
    EXPECT_EQ((x * x - x).to_vector(), (std::vector<float>{0, 2, 12}));
}

TEST(BinaryOps, EmptyBroadcast) {
    EXPECT_EQ(add(Tensor::empty({0, 3}), Tensor::empty({3})).shape(), Shape({0, 3}));
}

TEST(BinaryOps, ErrorsNameTheProblem) {
    expect_error([] { add(Tensor::zeros({2, 3}), Tensor::zeros({4})); }, "shapes [2, 3] and [4] cannot be broadcast");
    expect_error([] { mul(Tensor::zeros({2}), Tensor::zeros({2}, DType::F16)); }, "mul: the second operand must be f32");
    expect_error([] { div(Tensor(), Tensor::zeros({2})); }, "div: the first operand is an undefined tensor");
}

}  // namespace
}  // namespace forge
