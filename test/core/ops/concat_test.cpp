// concat and split: every axis, strided inputs, other dtypes, round trips, errors.
#include "core/ops/concat.h"

#include <gtest/gtest.h>

#include <vector>

namespace forge {
namespace {

Tensor counting(const Shape& shape, float start) {
    std::vector<float> values(static_cast<std::size_t>(shape.product()));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = start + static_cast<float>(i);
    return Tensor::from(std::span<const float>(values), shape);
}

TEST(ConcatOp, EveryAxisMatchesElementwiseDefinition) {
    for (int axis = 0; axis < 3; ++axis) {
        Shape a_shape{2, 3, 4}, b_shape{2, 3, 4};
        b_shape[axis] = 5;
        const Tensor a = counting(a_shape, 0.0f), b = counting(b_shape, 1000.0f);
        const std::vector<Tensor> parts = {a, b};
        const Tensor c = concat(parts, axis);
        Shape want = a_shape;
        want[axis] = a_shape[axis] + 5;
        ASSERT_EQ(c.shape(), want);
        for (std::int64_t i = 0; i < want[0]; ++i) {
            for (std::int64_t j = 0; j < want[1]; ++j) {
                for (std::int64_t k = 0; k < want[2]; ++k) {
                    std::array<std::int64_t, 3> index{i, j, k};
                    const bool from_a = index[static_cast<std::size_t>(axis)] < a_shape[axis];
                    if (!from_a) index[static_cast<std::size_t>(axis)] -= a_shape[axis];
                    const float expected = (from_a ? a : b).at(index);
                    ASSERT_EQ(c.at({i, j, k}), expected) << axis << ": " << i << "," << j << "," << k;
                }
            }
        }
    }
}

TEST(ConcatOp, StridedInputsNegativeAxisAndOtherDtypes) {
    const Tensor a = counting({4, 6}, 0.0f).transpose(0, 1);  // [6, 4], not contiguous
    const Tensor b = counting({6, 2}, 100.0f);
    const std::vector<Tensor> parts = {a, b, a.narrow(1, 1, 1)};
    const Tensor c = concat(parts, -1);
    ASSERT_EQ(c.shape(), (Shape{6, 7}));
    for (std::int64_t i = 0; i < 6; ++i) {
        for (std::int64_t j = 0; j < 4; ++j) EXPECT_EQ(c.at({i, j}), a.at({i, j}));
        for (std::int64_t j = 0; j < 2; ++j) EXPECT_EQ(c.at({i, 4 + j}), b.at({i, j}));
        EXPECT_EQ(c.at({i, 6}), a.at({i, 1}));
    }
    const std::vector<Tensor> halves = {a.to(DType::F16), b.to(DType::F16)};
    EXPECT_EQ(concat(halves, 1).to(DType::F32).to_vector(), c.narrow(1, 0, 6).contiguous().to_vector());
}

TEST(ConcatOp, SplitIsViewsAndRoundTrips) {
    const Tensor x = counting({3, 10}, 0.0f);
    const std::vector<std::int64_t> sizes = {2, 0, 8};
    const auto pieces = split(x, sizes, 1);
    ASSERT_EQ(pieces.size(), 3u);
    EXPECT_EQ(pieces[0].shape(), (Shape{3, 2}));
    EXPECT_EQ(pieces[1].shape(), (Shape{3, 0}));
    EXPECT_EQ(pieces[2].storage(), x.storage());  // a view
    EXPECT_EQ(pieces[2].at({1, 0}), x.at({1, 2}));
    EXPECT_EQ(concat(pieces, 1).to_vector(), x.to_vector());
}

TEST(ConcatOp, BadInputsAreErrors) {
    const Tensor a = counting({2, 3}, 0.0f);
    EXPECT_THROW(concat(std::vector<Tensor>{}, 0), Error);
    EXPECT_THROW(concat(std::vector<Tensor>{a, counting({3, 3}, 0.0f)}, 1), Error);
    EXPECT_THROW(concat(std::vector<Tensor>{a, counting({2, 3, 1}, 0.0f)}, 0), Error);
    EXPECT_THROW(concat(std::vector<Tensor>{a, a.to(DType::F16)}, 0), Error);
    EXPECT_THROW(concat(std::vector<Tensor>{a}, 2), Error);
    const std::vector<std::int64_t> wrong = {1, 1};
    EXPECT_THROW(split(a, wrong, 1), Error);
    const std::vector<std::int64_t> negative = {4, -1};
    EXPECT_THROW(split(a, negative, 1), Error);
}

}  // namespace
}  // namespace forge
