// The fused WaveNet layer (kernels/nam_wavenet.h), vectorised over time: a tile of up to 16
// output rows × 1-4 vectors of frames stays in registers while every (input row, tap) pair
// is loaded once and meets each row's weight as a broadcast. For the 3-16 channels of NAM
// models that keeps the FMA units busy without any transposes, and the weights (a few KiB
// per layer) are read from L1 as broadcast operands. The activation runs on the tile before
// it is stored, so z is written once, already activated.
#include "kernels/nam_wavenet.h"

#include "kernels/simd/unary_batch.h"

#include <utility>

namespace forge::kernels::simd {
namespace {

constexpr int kMaxRows = 16;  // rows in one register tile

// Enough independent accumulators to cover the FMA latency when there are few rows.
constexpr int vectors_for(int rows) { return rows <= 4 ? 4 : rows <= 8 ? 2 : 1; }

// Frames [t, t + count) of a row: a plain load for a full vector, zero-padded for the tail.
template <bool Full>
Batch load(const float* row, std::int64_t count) {
    if constexpr (Full) return Batch::load_unaligned(row);
    else return load_tail(row, static_cast<std::size_t>(count), 0.0f);
}

template <bool Full>
void store(Batch v, float* row, std::int64_t count) {
    if constexpr (Full) v.store_unaligned(row);
    else store_tail(v, row, static_cast<std::size_t>(count));
}

template <int Rows, int V>
using Tile = Batch[Rows][V];

// tile[r][v] += Σ_i weight[i·weight_stride + r] · in[i·in_stride + v·lanes]: one matrix of an
// input-major weight against `inputs` rows starting at the tile's first frame.
template <int Rows, int V, bool Full>
inline void accumulate(Tile<Rows, V>& tile, const float* in, std::int64_t in_stride, std::int64_t inputs,
                       const float* weight, std::int64_t weight_stride, std::int64_t count) {
    for (std::int64_t i = 0; i < inputs; ++i, in += in_stride, weight += weight_stride) {
        Batch x[V];
        for (int v = 0; v < V; ++v) x[v] = load<Full>(in + v * kLanes, count);
#pragma GCC unroll 16
        for (int r = 0; r < Rows; ++r) {
            const Batch w(weight[r]);
            for (int v = 0; v < V; ++v) tile[r][v] = xsimd::fma(w, x[v], tile[r][v]);
        }
    }
}

// f on rows [First, First + Count) of the tile. The bounds are constants so that the tile
// stays in registers (a run-time index would put it in memory).
template <int First, int Count, int Rows, int V>
[[gnu::always_inline]] inline void activate_tile(UnaryOp op, const UnaryParams& p, Tile<Rows, V>& tile) {
    with_unary(op, p, [&](auto f) __attribute__((always_inline)) {
#pragma GCC unroll 16
        for (int r = First; r < First + Count; ++r)
            for (int v = 0; v < V; ++v) tile[r][v] = f(tile[r][v]);
    });
}

// A tile that holds both halves of a gated / blended layer (rows = 2B <= kMaxRows): its top
// B rows become the gated (or blended) activation.
template <int Rows, int V>
[[gnu::always_inline]] inline void gate_tile(const NamWaveNetLayer& l, Tile<Rows, V>& tile) {
    constexpr int half = Rows / 2;
    Batch pre[half > 0 ? half : 1][V];
    for (int b = 0; b < half; ++b)
        for (int v = 0; v < V; ++v) pre[b][v] = tile[b][v];
    activate_tile<0, half>(l.activation, l.activation_params, tile);
    activate_tile<half, half>(l.secondary, l.secondary_params, tile);
    for (int b = 0; b < half; ++b) {
        for (int v = 0; v < V; ++v) {
            const Batch active = tile[b][v], second = tile[half + b][v];
            tile[b][v] = l.gating == NamGating::Gated ? active * second
                                                      : second * active + (Batch(1.0f) - second) * pre[b][v];
        }
    }
}

// The tile's first Count rows to `out` (rows `stride` apart); a constant count keeps the tile
// in registers.
template <int Rows, int V, bool Full, int Count>
[[gnu::always_inline]] inline void store_tile(const Tile<Rows, V>& tile, float* out, std::int64_t stride,
                                              std::int64_t count) {
    for (int r = 0; r < Count; ++r)
        for (int v = 0; v < V; ++v) store<Full>(tile[r][v], out + r * stride + v * kLanes, count - v * kLanes);
}

// tile = conv bias + conv taps + mixin for rows [r0, r0 + Rows) at frames [t0, t0 + V·lanes).
template <int Rows, int V, bool Full>
[[gnu::always_inline]] inline void conv_sums(const NamWaveNetLayer& l, Tile<Rows, V>& tile, std::int64_t r0,
                                             std::int64_t t0, std::int64_t count) {
    const std::int64_t rows = l.rows();
    for (int r = 0; r < Rows; ++r)
        for (int v = 0; v < V; ++v) tile[r][v] = Batch(l.conv_bias != nullptr ? l.conv_bias[r0 + r] : 0.0f);
    for (std::int64_t k = 0; k < l.kernel_size; ++k) {
        const std::int64_t shift = (l.kernel_size - 1 - k) * l.dilation;
        accumulate<Rows, V, Full>(tile, l.input + t0 - shift, l.input_stride, l.channels,
                                  l.conv + k * l.channels * rows + r0, rows, count);
    }
    accumulate<Rows, V, Full>(tile, l.condition + t0, l.condition_stride, l.condition_size, l.mixin + r0, rows, count);
}

// A layer with more rows than one tile, first pass: z rows [r0, r0 + Rows), activated unless
// gated (gate_rows() finishes a gated layer once both halves are stored).
template <int Rows, int V, bool Full>
void conv_tile(const NamWaveNetLayer& l, std::int64_t r0, std::int64_t t0, std::int64_t count) {
    Tile<Rows, V> tile;
    conv_sums<Rows, V, Full>(l, tile, r0, t0, count);
    if (l.gating == NamGating::None) activate_tile<0, Rows>(l.activation, l.activation_params, tile);
    store_tile<Rows, V, Full, Rows>(tile, l.z + r0 * l.frames + t0, l.frames, count);
}

// out rows [o0, o0 + Outs) = init rows + bias + Σ_b weight[b][o] · z[b], z the first Z rows of
// the tile: a 1x1 convolution from the activation still in registers.
template <int Z, int Outs, int Rows, int V, bool Full>
[[gnu::always_inline]] inline void mix_rows(const Tile<Rows, V>& z, const float* weight, std::int64_t outputs,
                                            const float* bias, const float* init, std::int64_t init_stride, float* out,
                                            std::int64_t out_stride, std::int64_t o0, std::int64_t count) {
    Batch acc[Outs][V];
    for (int o = 0; o < Outs; ++o) {
        const Batch b(bias != nullptr ? bias[o0 + o] : 0.0f);
        for (int v = 0; v < V; ++v) acc[o][v] = load<Full>(init + (o0 + o) * init_stride + v * kLanes, count) + b;
    }
#pragma GCC unroll 16
    for (int b = 0; b < Z; ++b) {
        for (int o = 0; o < Outs; ++o) {
            const Batch w(weight[b * outputs + o0 + o]);
            for (int v = 0; v < V; ++v) acc[o][v] = xsimd::fma(w, z[b][v], acc[o][v]);
        }
    }
    for (int o = 0; o < Outs; ++o)
        for (int v = 0; v < V; ++v) store<Full>(acc[o][v], out + (o0 + o) * out_stride + v * kLanes, count - v * kLanes);
}

// mix_rows over all `outputs` rows, Chunk at a time (Z·V + Chunk·V registers in use), the last
// chunk's size picked at run time.
template <int Z, int Chunk, int Rows, int V, bool Full, int... Rest>
[[gnu::always_inline]] inline void mix_all(const Tile<Rows, V>& z, const float* weight, std::int64_t outputs,
                                           const float* bias, const float* init, std::int64_t init_stride, float* out,
                                           std::int64_t out_stride, std::int64_t count,
                                           std::integer_sequence<int, Rest...>) {
    std::int64_t o = 0;
    for (; o + Chunk <= outputs; o += Chunk)
        mix_rows<Z, Chunk, Rows, V, Full>(z, weight, outputs, bias, init, init_stride, out, out_stride, o, count);
    const std::int64_t rest = outputs - o;
    ((rest == Rest + 1 ? (mix_rows<Z, Rest + 1, Rows, V, Full>(z, weight, outputs, bias, init, init_stride, out,
                                                                 out_stride, o, count),
                          true)
                       : false) ||
     ...);
}

// next and head for frames [t0, t0 + V·lanes) from z, the tile's first Z rows.
template <int Z, int Rows, int V, bool Full>
[[gnu::always_inline]] inline void layer_outputs(const NamWaveNetLayer& l, const Tile<Rows, V>& z, std::int64_t t0,
                                                 std::int64_t count) {
    constexpr int chunk = 8 / V;  // with Z·V <= 16: at most 24 registers of z and accumulators
    const float* x = l.input + t0;
    if constexpr (Z > 0) {
        if (l.next == nullptr) {
            // The residual nobody reads: no layer 1x1.
        } else if (l.layer1x1 != nullptr) {
            mix_all<Z, chunk, Rows, V, Full>(z, l.layer1x1, l.channels, l.layer1x1_bias, x, l.input_stride, l.next + t0,
                              l.next_stride, count, std::make_integer_sequence<int, chunk - 1>{});
        } else {
            for (std::int64_t c = 0; c < l.channels; ++c)
                for (int v = 0; v < V; ++v)
                    store<Full>(load<Full>(x + c * l.input_stride + v * kLanes, count),
                                l.next + c * l.next_stride + t0 + v * kLanes, count - v * kLanes);
        }
        if (l.head1x1 != nullptr) {
            mix_all<Z, chunk, Rows, V, Full>(z, l.head1x1, l.head_size, l.head1x1_bias, l.head + t0, l.head_stride, l.head + t0,
                              l.head_stride, count, std::make_integer_sequence<int, chunk - 1>{});
        } else {
            float* head = l.head + t0;  // head += z: H = B rows
            for (int b = 0; b < Z; ++b)
                for (int v = 0; v < V; ++v) {
                    float* h = head + b * l.head_stride + v * kLanes;
                    store<Full>(load<Full>(h, count) + z[b][v], h, count - v * kLanes);
                }
        }
    }
}

// A layer whose rows fit one tile (B <= 16, or B <= 8 gated): everything for frames
// [t0, t0 + V·lanes) in one go, z never leaving the registers: conv sums, activation (and
// gating), next = x + layer1x1(z), head += head1x1(z) or z.
template <int Rows, int V, bool Full>
void layer_tile(const NamWaveNetLayer& l, std::int64_t t0, std::int64_t count) {
    Tile<Rows, V> tile;
    conv_sums<Rows, V, Full>(l, tile, 0, t0, count);
    if (l.gating == NamGating::None) {
        activate_tile<0, Rows>(l.activation, l.activation_params, tile);
        layer_outputs<Rows, Rows, V, Full>(l, tile, t0, count);
    } else {
        gate_tile<Rows, V>(l, tile);
        layer_outputs<Rows / 2, Rows, V, Full>(l, tile, t0, count);
    }
}

// A 1x1 from z's top B rows, added to `init` rows: next = x + layer1x1(z), head += head1x1(z).
struct Pointwise {
    const float* weight;  // [B][outputs]
    std::int64_t outputs;
    const float* bias;    // or nullptr
    const float* init;
    std::int64_t init_stride;
    float* out;
    std::int64_t out_stride;
};

template <int Rows, int V, bool Full>
void pointwise_tile(const NamWaveNetLayer& l, const Pointwise& p, std::int64_t r0, std::int64_t t0,
                    std::int64_t count) {
    Tile<Rows, V> tile;
    for (int r = 0; r < Rows; ++r) {
        const Batch bias(p.bias != nullptr ? p.bias[r0 + r] : 0.0f);
        for (int v = 0; v < V; ++v) tile[r][v] = load<Full>(p.init + (r0 + r) * p.init_stride + t0 + v * kLanes, count) + bias;
    }
    accumulate<Rows, V, Full>(tile, l.z + t0, l.frames, l.bottleneck, p.weight + r0, p.outputs, count);
    for (int r = 0; r < Rows; ++r)
        for (int v = 0; v < V; ++v) store<Full>(tile[r][v], p.out + (r0 + r) * p.out_stride + t0 + v * kLanes, count - v * kLanes);
}

// Calls tile.operator()<Rows, V, Full>(r0, t0, count) over `rows` × frames: row blocks of up to
// kMaxRows (the last one's size picked at run time from 1..16), full tiles, then single vectors,
// then the padded tail.
template <int Rows, typename TileFn>
void over_frames(std::int64_t r0, std::int64_t frames, TileFn& tile) {
    constexpr int V = vectors_for(Rows);
    constexpr std::int64_t wide = V * static_cast<std::int64_t>(kLanes);
    std::int64_t t = 0;
    for (; t + wide <= frames; t += wide) tile.template operator()<Rows, V, true>(r0, t, wide);
    for (; t + static_cast<std::int64_t>(kLanes) <= frames; t += kLanes) tile.template operator()<Rows, 1, true>(r0, t, kLanes);
    if (t < frames) tile.template operator()<Rows, 1, false>(r0, t, frames - t);
}

template <typename TileFn, int... R>
void over_rows_sized(std::int64_t r0, std::int64_t rows, std::int64_t frames, TileFn& tile,
                     std::integer_sequence<int, R...>) {
    ((rows == R + 1 ? (over_frames<R + 1>(r0, frames, tile), true) : false) || ...);
}

template <typename TileFn>
void over_tiles(std::int64_t rows, std::int64_t frames, TileFn&& tile) {
    for (std::int64_t r0 = 0; r0 < rows; r0 += kMaxRows)
        over_rows_sized(r0, std::min<std::int64_t>(kMaxRows, rows - r0), frames, tile,
                        std::make_integer_sequence<int, kMaxRows>{});
}

// Gated / blended with more rows than one tile: the top B rows of z from both halves, in
// place, in two passes (the bottom half through its activation, then the top half).
void gate_rows(const NamWaveNetLayer& l) {
    const std::int64_t n = l.bottleneck * l.frames;  // top and bottom halves are dense
    float* top = l.z;
    float* bottom = l.z + n;
    with_unary(l.secondary, l.secondary_params, [bottom, n](auto f) {
        map_batches(std::span<const float>(bottom, static_cast<std::size_t>(n)), {bottom, static_cast<std::size_t>(n)}, f);
    });
    with_unary(l.activation, l.activation_params, [&l, top, bottom, n](auto f) {
        const auto combine = [&l, f](Batch pre, Batch second) {
            const Batch active = f(pre);
            if (l.gating == NamGating::Gated) return active * second;
            return second * active + (Batch(1.0f) - second) * pre;
        };
        std::int64_t i = 0;
        for (; i + static_cast<std::int64_t>(kLanes) <= n; i += kLanes)
            combine(Batch::load_unaligned(top + i), Batch::load_unaligned(bottom + i)).store_unaligned(top + i);
        if (i < n) {
            const auto rest = static_cast<std::size_t>(n - i);
            store_tail(combine(load_tail(top + i, rest, 0.0f), load_tail(bottom + i, rest, 0.0f)), top + i, rest);
        }
    });
}

void copy_rows(const float* from, std::int64_t from_stride, float* to, std::int64_t to_stride, std::int64_t rows,
               std::int64_t frames) {
    for (std::int64_t r = 0; r < rows; ++r) std::copy_n(from + r * from_stride, frames, to + r * to_stride);
}

}  // namespace

void nam_wavenet_layer(const NamWaveNetLayer& l) noexcept {
    if (l.rows() <= kMaxRows) {
        over_tiles(l.rows(), l.frames, [&l]<int Rows, int V, bool Full>(std::int64_t, std::int64_t t0, std::int64_t n) {
            layer_tile<Rows, V, Full>(l, t0, n);
        });
        return;
    }
    // More rows than one tile: z through memory, one pass per step.
    over_tiles(l.rows(), l.frames, [&l]<int Rows, int V, bool Full>(std::int64_t r0, std::int64_t t0, std::int64_t n) {
        conv_tile<Rows, V, Full>(l, r0, t0, n);
    });
    if (l.gating != NamGating::None) gate_rows(l);

    if (l.next == nullptr) {
        // The residual nobody reads: no layer 1x1.
    } else if (l.layer1x1 != nullptr) {
        const Pointwise next{l.layer1x1, l.channels, l.layer1x1_bias, l.input, l.input_stride, l.next, l.next_stride};
        over_tiles(l.channels, l.frames, [&]<int Rows, int V, bool Full>(std::int64_t r0, std::int64_t t0, std::int64_t n) {
            pointwise_tile<Rows, V, Full>(l, next, r0, t0, n);
        });
    } else {
        copy_rows(l.input, l.input_stride, l.next, l.next_stride, l.channels, l.frames);
    }

    if (l.head1x1 != nullptr) {
        const Pointwise head{l.head1x1, l.head_size, l.head1x1_bias, l.head, l.head_stride, l.head, l.head_stride};
        over_tiles(l.head_size, l.frames, [&]<int Rows, int V, bool Full>(std::int64_t r0, std::int64_t t0, std::int64_t n) {
            pointwise_tile<Rows, V, Full>(l, head, r0, t0, n);
        });
    } else {
        // head += z: an identity 1x1 would cost B× the work, so add the rows directly.
        for (std::int64_t b = 0; b < l.head_size; ++b) {
            float* acc = l.head + b * l.head_stride;
            const float* z = l.z + b * l.frames;
            std::int64_t t = 0;
            for (; t + static_cast<std::int64_t>(kLanes) <= l.frames; t += kLanes)
                (Batch::load_unaligned(acc + t) + Batch::load_unaligned(z + t)).store_unaligned(acc + t);
            for (; t < l.frames; ++t) acc[t] += z[t];
        }
    }
}

}  // namespace forge::kernels::simd
