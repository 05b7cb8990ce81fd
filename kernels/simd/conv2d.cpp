#include "kernels/conv2d.h"

#include "kernels/simd/widen.h"

#include <algorithm>

namespace forge::kernels::simd {
namespace {

// The inputs one tap reads for a vector of output columns [x0, x0 + lanes): columns
// x*stride + offset, zero outside the row. A unit-stride vector inside the row is one load; the
// others (stride 2 of the subsampling, the padded edges) are gathered lane by lane.
FloatBatch load_tap(const float* row, std::int64_t width, std::int64_t x0, std::int64_t stride, std::int64_t offset) {
    const std::int64_t first = x0 * stride + offset;
    const std::int64_t last = first + (kFloatLanes - 1) * stride;
    if (stride == 1 && first >= 0 && last < width) return FloatBatch::load_unaligned(row + first);
    alignas(64) float lanes[kFloatLanes];
    for (std::int64_t l = 0; l < kFloatLanes; ++l) {
        const std::int64_t col = first + l * stride;
        lanes[l] = col >= 0 && col < width ? row[col] : 0.0f;
    }
    return FloatBatch::load_aligned(lanes);
}

// One output row of channel o: vectors of kFloatLanes columns accumulate every (input channel,
// tap) product with an FMA; the ragged end of the row runs through a padded vector.
void conv_row(const Conv2d& conv, std::int64_t o, std::int64_t y) {
    const std::int64_t in_per_group = conv.in_channels / conv.groups;
    const std::int64_t first_input = o / (conv.out_channels / conv.groups) * in_per_group;
    const float* weights = conv.weight + o * in_per_group * conv.kernel_h * conv.kernel_w;
    float* out = conv.output + (o * conv.out_height + y) * conv.out_width;
    const float bias = conv.bias != nullptr ? conv.bias[o] : 0.0f;
    for (std::int64_t x0 = 0; x0 < conv.out_width; x0 += kFloatLanes) {
        FloatBatch acc(bias);
        for (std::int64_t c = 0; c < in_per_group; ++c) {
            const float* plane = conv.input + (first_input + c) * conv.in_height * conv.in_width;
            for (std::int64_t i = 0; i < conv.kernel_h; ++i) {
                const std::int64_t row = y * conv.stride_h + i - conv.pad_h;
                if (row < 0 || row >= conv.in_height) continue;
                for (std::int64_t j = 0; j < conv.kernel_w; ++j) {
                    const FloatBatch w(weights[(c * conv.kernel_h + i) * conv.kernel_w + j]);
                    acc = xsimd::fma(w, load_tap(plane + row * conv.in_width, conv.in_width, x0, conv.stride_w, j - conv.pad_w),
                                     acc);
                }
            }
        }
        const std::int64_t n = std::min(kFloatLanes, conv.out_width - x0);
        if (n == kFloatLanes) {
            acc.store_unaligned(out + x0);
        } else {
            alignas(64) float lanes[kFloatLanes];
            acc.store_aligned(lanes);
            std::copy(lanes, lanes + n, out + x0);
        }
    }
}

}  // namespace

void conv2d(const Conv2d& conv) noexcept {
    for (std::int64_t o = conv.out_channel_begin; o < conv.out_channel_end; ++o)
        for (std::int64_t y = 0; y < conv.out_height; ++y) conv_row(conv, o, y);
}

}  // namespace forge::kernels::simd
