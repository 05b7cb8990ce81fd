// Copy kernels: copy_strided against a direct index computation for permuted, sliced and
// broadcast views of every element size (the 4-byte transpose path included), simd against
// scalar byte for byte; copy_rows.
#include "kernels/copy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

namespace forge::kernels {
namespace {

struct View {
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;  // in elements, over a source buffer
    std::int64_t offset;
};

// Row-major walk of the view, computing every source index from scratch: the definition.
std::vector<std::byte> expected_copy(const std::vector<std::byte>& source, const View& view, std::size_t element_bytes) {
    std::int64_t total = 1;
    for (auto s : view.shape) total *= s;
    std::vector<std::byte> out(static_cast<std::size_t>(total) * element_bytes);
    for (std::int64_t n = 0; n < total; ++n) {
        std::int64_t rest = n, at = view.offset;
        for (std::size_t axis = view.shape.size(); axis-- > 0;) {
            at += rest % view.shape[axis] * view.strides[axis];
            rest /= view.shape[axis];
        }
        std::memcpy(out.data() + static_cast<std::size_t>(n) * element_bytes,
                    source.data() + static_cast<std::size_t>(at) * element_bytes, element_bytes);
    }
    return out;
}

template <typename Kernel>
std::vector<std::byte> run(Kernel kernel, const std::vector<std::byte>& source, const View& view, std::size_t element_bytes) {
    std::int64_t total = 1;
    for (auto s : view.shape) total *= s;
    std::vector<std::byte> out(static_cast<std::size_t>(total) * element_bytes, std::byte{0xAB});
    kernel(StridedCopy{source.data() + view.offset * static_cast<std::int64_t>(element_bytes), view.shape, view.strides,
                       element_bytes, out.data()});
    return out;
}

std::vector<View> views() {
    std::vector<View> all;
    // Transposed matrices around the 16 x 16 tile, and a batch of them.
    for (std::int64_t rows : {1, 2, 15, 16, 17, 40}) {
        for (std::int64_t cols : {1, 3, 16, 33}) all.push_back({{rows, cols}, {1, rows}, 0});
    }
    all.push_back({{3, 17, 20}, {17 * 20, 1, 17}, 0});       // [B, T, D] from [B, D, T]
    all.push_back({{2, 5, 3, 4}, {60, 4, 20, 1}, 0});        // attention head permute, rows contiguous
    all.push_back({{4, 6}, {0, 1}, 0});                      // broadcast rows
    all.push_back({{5, 7}, {14, 2}, 3});                     // sliced with a step
    all.push_back({{18, 18}, {1, 40}, 5});                   // transpose of a slice of a wider matrix
    all.push_back({{}, {}, 2});                              // a scalar
    all.push_back({{0, 4}, {4, 1}, 0});                      // empty
    return all;
}

TEST(CopyKernel, StridedCopyMatchesDefinitionForEveryElementSize) {
    std::vector<std::byte> source(8 * 4000);
    for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<std::byte>(i * 7 + i / 256);
    for (std::size_t element_bytes : {1u, 2u, 4u, 8u}) {
        for (const View& view : views()) {
            SCOPED_TRACE(testing::Message() << "element bytes " << element_bytes << ", rank " << view.shape.size()
                                            << ", first size " << (view.shape.empty() ? 0 : view.shape[0]));
            const auto want = expected_copy(source, view, element_bytes);
            EXPECT_EQ(run([](const StridedCopy& c) { scalar::copy_strided(c); }, source, view, element_bytes), want);
#if defined(FORGE_BACKEND_SIMD)
            EXPECT_EQ(run([](const StridedCopy& c) { simd::copy_strided(c); }, source, view, element_bytes), want);
#endif
        }
    }
}

TEST(CopyKernel, CopyRowsWritesOnlyTheBand) {
    std::vector<std::byte> src(5 * 12);
    std::iota(reinterpret_cast<unsigned char*>(src.data()), reinterpret_cast<unsigned char*>(src.data()) + src.size(), 0);
    auto check = [&](auto kernel) {
        std::vector<std::byte> dst(5 * 20, std::byte{0xEE});
        kernel(RowCopy{src.data(), 12, dst.data() + 3, 20, 5, 9});
        for (std::size_t r = 0; r < 5; ++r) {
            for (std::size_t c = 0; c < 20; ++c) {
                const std::byte want = c >= 3 && c < 12 ? src[r * 12 + c - 3] : std::byte{0xEE};
                ASSERT_EQ(dst[r * 20 + c], want) << r << "," << c;
            }
        }
    };
    check([](const RowCopy& c) { scalar::copy_rows(c); });
#if defined(FORGE_BACKEND_SIMD)
    check([](const RowCopy& c) { simd::copy_rows(c); });
#endif
}

}  // namespace
}  // namespace forge::kernels
