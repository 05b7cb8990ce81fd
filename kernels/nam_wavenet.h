// One Neural Amp Modeler WaveNet layer in one call, for the common layer: no FiLM, ungrouped
// convolutions, one activation parameter set (models/nam/wavenet_layer.h has the full math):
//
//   z[r, t]    = conv_bias[r] + Σ_k Σ_c conv[k][c][r] · x[c, t - (K-1-k)·dilation]
//                             + Σ_m mixin[m][r] · condition[m, t]         r < rows (B or 2B)
//   z[b, t]    = activation(z[b, t])                                 gating None
//              | activation(z[b, t]) · secondary(z[B+b, t])          Gated
//              | α·activation(z[b, t]) + (1-α)·z[b, t], α = secondary(z[B+b, t])   Blended
//   next[c, t] = x[c, t] + layer1x1_bias[c] + Σ_b layer1x1[b][c] · z[b, t]   (x[c, t] if no layer1x1;
//                                                       not computed at all if next is nullptr)
//   head[h, t] += head1x1_bias[h] + Σ_b head1x1[b][h] · z[b, t]              (z[h, t] if no head1x1)
//
// Weights are input-major ("[in][out]": each input's weights for all outputs contiguous), so the
// fast kernel broadcasts one weight at a time against a vector of frames; the model repacks
// Core's [out][in][K] once at load time. The kernels never allocate: `z` is the caller's scratch.
#pragma once

#include "kernels/unary.h"

#include <cstdint>

namespace forge::kernels {

enum class NamGating { None, Gated, Blended };

struct NamWaveNetLayer {
    // Shape.
    std::int64_t channels;        // C: the layer's input and residual output
    std::int64_t bottleneck;      // B: rows after the activation
    std::int64_t condition_size;  // M
    std::int64_t kernel_size;     // K
    std::int64_t dilation;
    NamGating gating;             // rows = B (None) or 2B (Gated, Blended)
    UnaryOp activation, secondary;  // NAM's functions: any of kernels/unary.h
    UnaryParams activation_params, secondary_params;

    // Weights, input-major.
    const float* conv;            // [K][C][rows]
    const float* conv_bias;       // [rows], or nullptr
    const float* mixin;           // [M][rows]
    const float* layer1x1;        // [B][C], or nullptr: next = x
    const float* layer1x1_bias;   // [C], or nullptr
    const float* head1x1;         // [B][H], or nullptr: the head gets z itself (H = B)
    const float* head1x1_bias;    // [H], or nullptr
    std::int64_t head_size;       // H

    // Signals: rows `*_stride` floats apart, frame t of the block at column t.
    const float* input;           // x; columns down to -(K-1)·dilation hold the history
    std::int64_t input_stride;
    const float* condition;
    std::int64_t condition_stride;
    float* z;                     // scratch: rows × frames, dense (row stride = frames); its
                                  // contents afterwards are unspecified
    float* next;                  // C rows; must not alias input. nullptr: nobody reads the
                                  // residual (the last layer of a WaveNet's last array)
    std::int64_t next_stride;
    float* head;                  // H rows, accumulated into
    std::int64_t head_stride;
    std::int64_t frames;

    std::int64_t rows() const { return gating == NamGating::None ? bottleneck : 2 * bottleneck; }
};

namespace scalar { void nam_wavenet_layer(const NamWaveNetLayer& layer) noexcept; }
namespace simd { void nam_wavenet_layer(const NamWaveNetLayer& layer) noexcept; }

}  // namespace forge::kernels
