// Tensor layout and view semantics: views share storage, copies do not, and every view
// reads the elements NumPy/PyTorch would.
#include "core/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace forge {
namespace {

// A 2x3x4 tensor holding 0..23.
Tensor iota_234() { return Tensor::arange(24).reshape({2, 3, 4}); }

TEST(Tensor, CreationAndLayout) {
    const Tensor t = Tensor::zeros({2, 3}, DType::F32);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.strides(), (Strides{3, 1}));
    EXPECT_EQ(t.numel(), 6);
    EXPECT_EQ(t.nbytes(), 24u);
    EXPECT_TRUE(t.is_contiguous());
    EXPECT_EQ(t.to_vector(), std::vector<float>(6, 0.0f));
    EXPECT_EQ(Tensor::full({2}, 1.5f).to_vector(), (std::vector<float>{1.5f, 1.5f}));
    EXPECT_EQ(Tensor::from({1, 2, 3, 4}, {2, 2}).at({1, 0}), 3.0f);
}

TEST(Tensor, FromRejectsAWrongCount) { EXPECT_THROW(Tensor::from({1, 2, 3}, {2, 2}), Error); }

TEST(Tensor, RankIsLimited) {
    EXPECT_THROW(Tensor::zeros({1, 1, 1, 1, 1, 1, 1, 1, 1}), Error);
    EXPECT_NO_THROW(Tensor::zeros({1, 1, 1, 1, 1, 1, 1, 1}));
}

TEST(Tensor, NarrowIsAViewWithAnOffset) {
    const Tensor t = iota_234();
    const Tensor n = t.narrow(2, 1, 2);
    EXPECT_EQ(n.shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(n.storage(), t.storage()) << "a view shares storage";
    EXPECT_FALSE(n.is_contiguous());
    EXPECT_EQ(n.at({1, 2, 1}), 1 * 12 + 2 * 4 + 2);
    EXPECT_EQ(n.to_vector()[0], 1.0f);
    EXPECT_THROW(t.narrow(2, 3, 2), Error);
}

TEST(Tensor, SelectDropsTheAxis) {
    const Tensor s = iota_234().select(1, 2);
    EXPECT_EQ(s.shape(), (Shape{2, 4}));
    EXPECT_EQ(s.to_vector(), (std::vector<float>{8, 9, 10, 11, 20, 21, 22, 23}));
}

TEST(Tensor, PermuteAndTransposeReorderAxes) {
    const Tensor t = iota_234();
    const Tensor p = t.permute({2, 0, 1});
    EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 3; ++k) ASSERT_EQ(p.at({i, j, k}), t.at({j, k, i}));
    const Tensor tr = t.transpose(0, 2);
    EXPECT_EQ(tr.shape(), (Shape{4, 3, 2}));
    EXPECT_EQ(tr.at({3, 1, 1}), t.at({1, 1, 3}));
    EXPECT_THROW(t.permute({0, 0, 1}), Error);
}

TEST(Tensor, ContiguousMaterializesAView) {
    const Tensor t = iota_234().transpose(0, 1);  // [3, 2, 4]
    const Tensor c = t.contiguous();
    EXPECT_TRUE(c.is_contiguous());
    EXPECT_NE(c.storage(), t.storage());
    EXPECT_EQ(c.to_vector(), t.to_vector());
    EXPECT_EQ(c.at({2, 1, 3}), 1 * 12 + 2 * 4 + 3);
    const Tensor already = iota_234();
    EXPECT_EQ(already.contiguous().storage(), already.storage()) << "no copy when already contiguous";
}

TEST(Tensor, ReshapeIsAViewOfContiguousDataAndACopyOtherwise) {
    const Tensor t = iota_234();
    const Tensor r = t.reshape({6, -1});
    EXPECT_EQ(r.shape(), (Shape{6, 4}));
    EXPECT_EQ(r.storage(), t.storage());
    const Tensor transposed = t.transpose(1, 2);
    const Tensor copied = transposed.reshape({24});
    EXPECT_NE(copied.storage(), t.storage());
    EXPECT_EQ(copied.to_vector(), transposed.to_vector());
    EXPECT_THROW(t.reshape({5, -1}), Error);
    EXPECT_THROW(t.reshape({-1, -1}), Error);
}

TEST(Tensor, BroadcastUsesZeroStrides) {
    const Tensor row = Tensor::from({1, 2, 3}, {3});
    const Tensor b = row.broadcast_to({2, 3});
    EXPECT_EQ(b.strides(), (Strides{0, 1}));
    EXPECT_EQ(b.to_vector(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
    const Tensor column = Tensor::from({1, 2}, {2, 1}).broadcast_to({2, 3});
    EXPECT_EQ(column.to_vector(), (std::vector<float>{1, 1, 1, 2, 2, 2}));
    EXPECT_THROW(row.broadcast_to({2, 4}), Error);
}

TEST(Tensor, UnsqueezeAndSqueeze) {
    const Tensor t = iota_234();
    EXPECT_EQ(t.unsqueeze(0).shape(), (Shape{1, 2, 3, 4}));
    EXPECT_EQ(t.unsqueeze(-1).shape(), (Shape{2, 3, 4, 1}));
    EXPECT_EQ(t.unsqueeze(1).squeeze(1).shape(), t.shape());
    EXPECT_THROW(t.squeeze(0), Error);
}

TEST(Tensor, ViewsOfViewsComposeOffsets) {
    const Tensor t = Tensor::arange(100).reshape({10, 10});
    const Tensor v = t.narrow(0, 2, 5).narrow(1, 3, 4).transpose(0, 1).select(0, 1);  // column 4, rows 2..6
    EXPECT_EQ(v.to_vector(), (std::vector<float>{24, 34, 44, 54, 64}));
}

TEST(Tensor, DTypeConversionsRoundTrip) {
    const Tensor x = Tensor::from({0.1f, -2.5f, 65504.0f, 1e-8f, 3.0f}, {5});
    const Tensor h = x.to(DType::F16);
    EXPECT_EQ(h.dtype(), DType::F16);
    EXPECT_EQ(h.to(DType::F32).at({1}), -2.5f);
    EXPECT_EQ(h.to(DType::F32).at({2}), 65504.0f);
    EXPECT_NEAR(h.to(DType::F32).at({0}), 0.1f, 1e-4f);
    EXPECT_EQ(x.to(DType::BF16).to(DType::F32).at({4}), 3.0f);
    EXPECT_EQ(x.to(DType::I32).to(DType::F32).at({1}), -2.0f);  // truncation toward zero
    const std::vector<std::int64_t> big = {(std::int64_t{1} << 40) + 1};
    const Tensor i64 = Tensor::from<std::int64_t>(big, {1});
    EXPECT_EQ(i64.to(DType::F64).to(DType::I64).data<std::int64_t>()[0], big[0]) << "exact through f64";
}

TEST(Tensor, ConversionOfALargeStridedTensorMatchesElementwise) {
    const Tensor t = Tensor::arange(300000).reshape({600, 500}).transpose(0, 1);
    const Tensor h = t.to(DType::BF16).to(DType::F32);
    const auto expect = t.to_vector();
    const auto got = h.to_vector();
    for (std::size_t i = 0; i < got.size(); i += 997) ASSERT_NEAR(got[i], expect[i], std::fabs(expect[i]) / 128);
}

TEST(Tensor, TypedAccessChecksTheDType) {
    const Tensor t = Tensor::zeros({2}, DType::F16);
    EXPECT_THROW(t.data<float>(), Error);
}

TEST(Tensor, QuantizedTensorsKeepWholeBlocks) {
    const Tensor q = Tensor::zeros({4, 64}, DType::Q8_0);
    EXPECT_EQ(q.nbytes(), 4u * 2 * 34);
    const Tensor rows = q.narrow(0, 1, 2);
    EXPECT_EQ(rows.raw_data() - q.raw_data(), 68);
    EXPECT_THROW(q.narrow(1, 0, 16), Error);
    EXPECT_THROW(Tensor::zeros({4, 40}, DType::Q4_0), Error);
    EXPECT_EQ(rows.contiguous().nbytes(), 2u * 68);
}

TEST(Tensor, PrintsLikePyTorch) {
    const Tensor t = Tensor::arange(6).reshape({2, 3});
    EXPECT_EQ(t.to_string(),
              "tensor([[0.0000, 1.0000, 2.0000],\n"
              "        [3.0000, 4.0000, 5.0000]], shape=[2, 3], dtype=f32)");
    const Tensor long_row = Tensor::arange(10);
    EXPECT_EQ(long_row.to_string(),
              "tensor([0.0000, 1.0000, 2.0000, ..., 7.0000, 8.0000, 9.0000], shape=[10], dtype=f32)");
    EXPECT_EQ(Tensor().to_string(), "tensor(undefined)");
}

}  // namespace
}  // namespace forge
