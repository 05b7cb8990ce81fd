// Copies through the op front-end: transposes and permutes made contiguous, split across
// threads, for 4- and 2-byte elements.
#include "core/tensor_copy.h"

#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace forge {
namespace {

Tensor counting(const Shape& shape) {
    std::vector<float> values(static_cast<std::size_t>(shape.product()));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 2000);
    return Tensor::from(std::span<const float>(values), shape);
}

TEST(CopyOp, TransposedMatrixBecomesContiguous) {
    for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{300, 517}, {1, 40}, {33, 1}}) {
        const Tensor x = counting({rows, cols});
        for (DType dtype : {DType::F32, DType::F16}) {
            const Tensor t = x.to(dtype).transpose(0, 1);
            const Tensor c = copy_to_contiguous(t);
            ASSERT_TRUE(c.is_contiguous());
            for (std::int64_t i = 0; i < cols; i += 7) {
                for (std::int64_t j = 0; j < rows; j += 3) ASSERT_EQ(c.at({i, j}), x.at({j, i})) << i << "," << j;
            }
        }
    }
}

TEST(CopyOp, PermutedBatchIsTheSameForAnyThreadCount) {
    const Tensor x = counting({4, 64, 8, 24}).permute({0, 2, 3, 1});  // [4, 8, 24, 64]
    std::vector<std::vector<float>> results;
    for (int threads : {1, 2, 3}) {
        ThreadPool::set_global_threads(threads);
        results.push_back(copy_to_contiguous(x).to_vector());
    }
    ThreadPool::set_global_threads(ThreadPool::default_threads());
    EXPECT_EQ(results[0], results[1]);
    EXPECT_EQ(results[0], results[2]);
    EXPECT_EQ(results[0], x.to_vector());
}

}  // namespace
}  // namespace forge
