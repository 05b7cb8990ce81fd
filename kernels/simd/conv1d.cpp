#include "kernels/conv1d.h"

#include "kernels/simd/widen.h"

#include <algorithm>

namespace forge::kernels::simd {
namespace {

// A block of output is up to 8 channels x kBlockTime samples held in registers while the
// (input channel, tap) loop runs: each input vector loaded once feeds every channel of the
// block. That suits the small channel counts of audio models (8-16) at any dilation.
constexpr std::int64_t kTimeVectors = 2;
constexpr std::int64_t kBlockTime = kTimeVectors * kFloatLanes;

// Input samples [source, source + kBlockTime) of one channel, zero outside [0, length): the
// padding of a causal convolution and the ragged end of the time range. Only blocks near the
// ends of the signal come here; kept out of line so the common path stays free of calls.
[[gnu::noinline]] void load_padded_window(const float* row, std::int64_t length, std::int64_t source,
                                          FloatBatch window[kTimeVectors]) {
    alignas(64) float padded[kBlockTime];
    for (std::int64_t i = 0; i < kBlockTime; ++i) {
        const std::int64_t s = source + i;
        padded[i] = s >= 0 && s < length ? row[s] : 0.0f;
    }
    for (std::int64_t v = 0; v < kTimeVectors; ++v) window[v] = FloatBatch::load_aligned(padded + v * kFloatLanes);
}

// Output channels [first, first + Channels) (one group) at times [t0, min(t0 + kBlockTime, t_end)).
// Interior blocks read every tap straight from the input; the others through padded windows.
template <std::int64_t Channels, bool Interior>
void conv_block(const Conv1d& conv, std::int64_t first, std::int64_t t0, std::int64_t t_end) {
    const std::int64_t in_per_group = conv.in_channels / conv.groups;
    const std::int64_t first_input = first / (conv.out_channels / conv.groups) * in_per_group;
    const std::int64_t taps = conv.kernel_size;
    const std::int64_t weight_stride = in_per_group * taps;  // between output channels
    const float* weights = conv.weight + first * weight_stride;

    FloatBatch acc[Channels][kTimeVectors];
    for (std::int64_t c = 0; c < Channels; ++c) {
        const FloatBatch bias(conv.bias != nullptr ? conv.bias[first + c] : 0.0f);
        for (std::int64_t v = 0; v < kTimeVectors; ++v) acc[c][v] = bias;
    }
    for (std::int64_t i = 0; i < in_per_group; ++i) {
        const float* row = conv.input + (first_input + i) * conv.input_row_stride;
        for (std::int64_t k = 0; k < taps; ++k) {
            const std::int64_t source = t0 + k * conv.dilation - conv.left_pad;
            FloatBatch window[kTimeVectors];
            if constexpr (Interior) {
                for (std::int64_t v = 0; v < kTimeVectors; ++v) {
                    window[v] = FloatBatch::load_unaligned(row + source + v * kFloatLanes);
                }
            } else {
                load_padded_window(row, conv.in_length, source, window);
            }
#pragma GCC unroll 8
            for (std::int64_t c = 0; c < Channels; ++c) {
                const FloatBatch w(weights[c * weight_stride + i * taps + k]);
#pragma GCC unroll 4
                for (std::int64_t v = 0; v < kTimeVectors; ++v) acc[c][v] = xsimd::fma(w, window[v], acc[c][v]);
            }
        }
    }
    const std::int64_t count = std::min(kBlockTime, t_end - t0);
    for (std::int64_t c = 0; c < Channels; ++c) {
        float* out = conv.output + (first + c) * conv.output_row_stride + t0;
        if (count == kBlockTime) {
            for (std::int64_t v = 0; v < kTimeVectors; ++v) acc[c][v].store_unaligned(out + v * kFloatLanes);
            continue;
        }
        alignas(64) float block[kBlockTime];
        for (std::int64_t v = 0; v < kTimeVectors; ++v) acc[c][v].store_aligned(block + v * kFloatLanes);
        std::copy_n(block, count, out);
    }
}

// Output channels [first, last) of one group, in blocks of 8, 4, 2, 1.
template <bool Interior>
void conv_channels(const Conv1d& conv, std::int64_t first, std::int64_t last, std::int64_t t0) {
    while (first < last) {
        const std::int64_t left = last - first;
        if (left >= 8) {
            conv_block<8, Interior>(conv, first, t0, conv.out_end);
            first += 8;
        } else if (left >= 4) {
            conv_block<4, Interior>(conv, first, t0, conv.out_end);
            first += 4;
        } else if (left >= 2) {
            conv_block<2, Interior>(conv, first, t0, conv.out_end);
            first += 2;
        } else {
            conv_block<1, Interior>(conv, first, t0, conv.out_end);
            first += 1;
        }
    }
}

// Whether every tap of the block at t0 reads inside the input (no padding, no ragged end).
bool is_interior(const Conv1d& conv, std::int64_t t0) {
    const std::int64_t first_source = t0 - conv.left_pad;
    const std::int64_t last_source = t0 + (conv.kernel_size - 1) * conv.dilation - conv.left_pad + kBlockTime;
    return first_source >= 0 && last_source <= conv.in_length && t0 + kBlockTime <= conv.out_end;
}

}  // namespace

void conv1d(const Conv1d& conv) noexcept {
    const std::int64_t out_per_group = conv.out_channels / conv.groups;
    // Time outermost: one block of input windows stays in L1 while every channel uses it.
    for (std::int64_t t0 = conv.out_begin; t0 < conv.out_end; t0 += kBlockTime) {
        for (std::int64_t o = conv.out_channel_begin; o < conv.out_channel_end;) {
            const std::int64_t group_end = (o / out_per_group + 1) * out_per_group;
            const std::int64_t last = std::min(group_end, conv.out_channel_end);
            if (is_interior(conv, t0)) conv_channels<true>(conv, o, last, t0);
            else conv_channels<false>(conv, o, last, t0);
            o = last;
        }
    }
}

}  // namespace forge::kernels::simd
