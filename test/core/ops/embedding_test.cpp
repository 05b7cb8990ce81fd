// embedding op: f32 and f16 tables, i32 and i64 ids of any shape, range errors.
#include "core/ops/embedding.h"

#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace forge {
namespace {

Tensor table_of(std::int64_t rows, std::int64_t dim) {
    std::vector<float> values(static_cast<std::size_t>(rows * dim));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f - 3.0f;
    return Tensor::from(std::span<const float>(values), {rows, dim});
}

TEST(EmbeddingOp, PicksRowsForEveryTableAndIdType) {
    const Tensor table = table_of(50, 19);
    const std::vector<std::int64_t> id_values = {3, 0, 49, 3, 17, 8};
    const Tensor ids64 = Tensor::from(std::span<const std::int64_t>(id_values), {2, 3});
    const std::vector<std::int32_t> id32_values(id_values.begin(), id_values.end());
    const Tensor ids32 = Tensor::from(std::span<const std::int32_t>(id32_values), {2, 3});
    for (const Tensor& t : {table, table.to(DType::F16)}) {
        for (const Tensor& ids : {ids32, ids64}) {
            const Tensor out = embedding(t, ids);
            ASSERT_EQ(out.shape(), (Shape{2, 3, 19}));
            ASSERT_EQ(out.dtype(), DType::F32);
            for (std::int64_t i = 0; i < 6; ++i) {
                for (std::int64_t d = 0; d < 19; ++d) {
                    // Values are multiples of 1/4 below 256: exact in f16 too.
                    ASSERT_EQ(out.at({i / 3, i % 3, d}), table.at({id_values[static_cast<std::size_t>(i)], d}));
                }
            }
        }
    }
}

TEST(EmbeddingOp, ManyIdsAcrossThreadsAndStridedTable) {
    const Tensor wide = table_of(40, 64);
    const Tensor table = wide.narrow(1, 8, 32);  // not contiguous
    std::vector<std::int32_t> id_values(1000);
    for (std::size_t i = 0; i < id_values.size(); ++i) id_values[i] = static_cast<std::int32_t>((i * 7) % 40);
    const Tensor out = embedding(table, Tensor::from(std::span<const std::int32_t>(id_values), {1000}));
    for (std::int64_t i = 0; i < 1000; i += 37) {
        for (std::int64_t d = 0; d < 32; ++d) ASSERT_EQ(out.at({i, d}), table.at({id_values[static_cast<std::size_t>(i)], d}));
    }
}

TEST(EmbeddingOp, BadInputsAreErrors) {
    const Tensor table = table_of(10, 4);
    const std::vector<std::int64_t> bad = {1, 10};
    EXPECT_THROW(embedding(table, Tensor::from(std::span<const std::int64_t>(bad), {2})), Error);
    const std::vector<std::int64_t> negative = {-1};
    EXPECT_THROW(embedding(table, Tensor::from(std::span<const std::int64_t>(negative), {1})), Error);
    EXPECT_THROW(embedding(table, Tensor::zeros({2})), Error);                 // f32 ids
    EXPECT_THROW(embedding(table.reshape({40}), Tensor::zeros({2}, DType::I32)), Error);  // rank-1 table
    try {
        embedding(table, Tensor::from(std::span<const std::int64_t>(bad), {2}));
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("id 10 at position 1"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace forge
