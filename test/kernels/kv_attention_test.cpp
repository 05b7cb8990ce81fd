// The scalar KV-cache attention loops against double precision, for f32 and f16 caches read
// with a row stride (one head of a wider cache row).
#include "kernels/half.h"
#include "kernels/kv_attention.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::uniform;

struct Cache {
    std::vector<float> f32;
    std::vector<std::uint16_t> f16;
};

// `count` rows of `stride` values; the f32 copy holds exactly the f16 values, so both caches
// give the same answer.
Cache make_cache(std::size_t count, std::size_t stride, std::uint32_t seed) {
    Cache c;
    c.f32 = uniform(count * stride, -1, 1, seed);
    for (float& v : c.f32) {
        c.f16.push_back(f32_to_f16(v));
        v = f16_to_f32(c.f16.back());
    }
    return c;
}

// Two queries sharing the kv head (a grouped-query group), one head of a wider cache row.
TEST(KvAttentionScalar, DotRowsMatchDoublePrecision) {
    const std::size_t dim = 24, stride = 56, count = 9, offset = 16, n_q = 2;  // the head at [16, 40)
    const Cache cache = make_cache(count, stride, 3);
    const auto q = uniform(n_q * dim, -1, 1, 4);
    std::vector<float> from_f32(n_q * count), from_f16(n_q * count);
    scalar::kv_dot_rows<float>(q, dim, std::span(cache.f32).subspan(offset), stride, from_f32);
    scalar::kv_dot_rows<std::uint16_t>(q, dim, std::span(cache.f16).subspan(offset), stride, from_f16);
    for (std::size_t i = 0; i < n_q; ++i) {
        for (std::size_t j = 0; j < count; ++j) {
            double want = 0;
            for (std::size_t d = 0; d < dim; ++d) want += double(q[i * dim + d]) * cache.f32[j * stride + offset + d];
            EXPECT_TRUE(close(from_f32[i * count + j], want, 1e-5, 1e-6)) << i << " " << j;
            EXPECT_EQ(from_f16[i * count + j], from_f32[i * count + j]) << i << " " << j;
        }
    }
}

TEST(KvAttentionScalar, AccumulateRowsAddsTheWeightedSum) {
    const std::size_t dim = 20, stride = 40, count = 7, offset = 20, n_q = 3;
    const Cache cache = make_cache(count, stride, 5);
    const auto weights = uniform(n_q * count, 0, 1, 6);
    const auto start = uniform(n_q * dim, -1, 1, 7);
    std::vector<float> from_f32 = start, from_f16 = start;
    scalar::kv_accumulate_rows<float>(weights, dim, std::span(cache.f32).subspan(offset), stride, from_f32);
    scalar::kv_accumulate_rows<std::uint16_t>(weights, dim, std::span(cache.f16).subspan(offset), stride, from_f16);
    for (std::size_t i = 0; i < n_q; ++i) {
        for (std::size_t d = 0; d < dim; ++d) {
            double want = start[i * dim + d];
            for (std::size_t j = 0; j < count; ++j) want += double(weights[i * count + j]) * cache.f32[j * stride + offset + d];
            EXPECT_TRUE(close(from_f32[i * dim + d], want, 1e-5, 1e-6)) << i << " " << d;
            EXPECT_EQ(from_f16[i * dim + d], from_f32[i * dim + d]) << i << " " << d;
        }
    }
}

}  // namespace
}  // namespace forge::kernels
