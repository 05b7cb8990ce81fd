// The simd KV-cache attention loops against the scalar ones (simd builds only): head sizes
// around every vector width, row counts around the simd kernel's row tiles, 1 to 9 queries
// per kv head (the kernel's groups of up to 4 and their remainders), f32 and f16.
#include "kernels/half.h"
#include "kernels/kv_attention.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::uniform;

std::vector<std::uint16_t> to_f16(const std::vector<float>& x) {
    std::vector<std::uint16_t> h;
    for (float v : x) h.push_back(f32_to_f16(v));
    return h;
}

template <typename Element>
void expect_simd_matches_scalar(const std::vector<Element>& rows, std::size_t dim, std::size_t stride,
                                std::size_t count, std::size_t n_q, std::uint32_t seed) {
    const auto q = uniform(n_q * dim, -1, 1, seed);
    std::vector<float> want(n_q * count), got(n_q * count);
    scalar::kv_dot_rows<Element>(q, dim, rows, stride, want);
    simd::kv_dot_rows<Element>(q, dim, rows, stride, got);
    for (std::size_t j = 0; j < want.size(); ++j) {
        ASSERT_TRUE(close(got[j], want[j], 1e-5, 1e-5)) << "dim " << dim << " queries " << n_q << " score " << j;
    }

    const auto weights = uniform(n_q * count, 0, 1, seed + 1);
    std::vector<float> want_out = uniform(n_q * dim, -1, 1, seed + 2), got_out = want_out;
    scalar::kv_accumulate_rows<Element>(weights, dim, rows, stride, want_out);
    simd::kv_accumulate_rows<Element>(weights, dim, rows, stride, got_out);
    for (std::size_t d = 0; d < want_out.size(); ++d) {
        ASSERT_TRUE(close(got_out[d], want_out[d], 1e-5, 1e-5))
            << "dim " << dim << " count " << count << " queries " << n_q << " out " << d;
    }
}

TEST(KvAttentionSimd, MatchesScalar) {
    for (std::size_t dim : {1, 7, 8, 15, 16, 17, 32, 40, 64, 80, 96, 128, 129, 256}) {
        for (std::size_t count : {1, 3, 4, 5, 8, 33}) {
            const std::size_t stride = 2 * dim + 3;  // one head of a wider, oddly sized row
            const auto seed = static_cast<std::uint32_t>(dim * 100 + count);
            const auto values = uniform(count * stride, -1, 1, seed);
            for (std::size_t n_q : {1, 2, 3, 4, 5, 9}) {
                expect_simd_matches_scalar(values, dim, stride, count, n_q, seed + 10);
                expect_simd_matches_scalar(to_f16(values), dim, stride, count, n_q, seed + 20);
            }
        }
    }
}

}  // namespace
}  // namespace forge::kernels
