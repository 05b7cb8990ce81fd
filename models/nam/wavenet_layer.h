// One WaveNet layer, as Core's wavenet::detail::Layer (NAM/wavenet/model.cpp, Layer::Process):
//
//   z    = conv(x) + input_mixin(condition)          dilated causal conv, 1x1 mixin
//   z    = activation(z)                             gating none
//        | activation(z_top) · secondary(z_bottom)  gated   (conv and mixin give 2·bottleneck rows)
//        | α·activation(z_top) + (1-α)·z_top, α = secondary(z_bottom)   blended
//   head = head1x1(z) if active, else z              to the head accumulator
//   next = x + layer1x1(z) if active, else x         to the next layer
//
// with FiLM modulations at up to eight points. Core applies layer1x1_post_film only in blended
// layers (its weights are read in every mode); forge does the same, to render the same audio.
//
// The common layer (no FiLM, ungrouped convolutions, one slope per activation) runs as one
// fused kernel (core/infer/nam_wavenet_layer.h) on weights repacked input-major at prepare
// time; the previous layer writes its output straight into this layer's conv line. Every other
// layer takes the general path below, one operation at a time.
#pragma once

#include "core/infer/nam_wavenet_layer.h"
#include "models/nam/conv.h"
#include "models/nam/film.h"
#include "models/nam/wavenet_config.h"

#include <memory>
#include <optional>
#include <vector>

namespace forge::nam {

class WaveNetLayer {
public:
    WaveNetLayer(const LayerArrayConfig& array, const WaveNetLayerConfig& layer, WeightCursor& weights,
                 const std::string& what);
    void prepare(int max_frames);
    // Where the caller writes this block's input x (channels rows), before process().
    Signal input(int frames) noexcept;
    // next = x + layer1x1(z) (channels rows, must not be this layer's input);
    // head_sum += head1x1(z) or z (head_output_size rows). next_wanted false: nobody reads next
    // (the last layer of the last array), so the fused kernel skips the layer 1x1; the general
    // path still writes it.
    void process(ConstSignal condition, Signal next, Signal head_sum, int frames, bool next_wanted = true) noexcept;

    const CausalConv& conv() const { return conv_; }
    bool fused() const { return fused_; }

private:
    bool fits_fused_kernel() const;
    void pack_fused_weights();
    void process_general(ConstSignal condition, Signal next, Signal head_sum, int frames) noexcept;
    void activate(ConstSignal condition, int frames) noexcept;
    static std::optional<Film> make_film(int condition, int channels, const FilmConfig& config,
                                         WeightCursor& weights, const std::string& what);

    int channels_, bottleneck_, condition_size_;
    Gating gating_;
    Activation activation_, secondary_;
    CausalConv conv_;
    Conv1x1 mixin_;
    std::optional<Conv1x1> layer1x1_, head1x1_;
    std::optional<Film> conv_pre_, conv_post_, mixin_pre_, mixin_post_, activation_pre_, activation_post_,
        layer1x1_post_, head1x1_post_;
    SignalBuffer z_;         // conv output, then the activation (top bottleneck rows)
    SignalBuffer x_;         // general path: the block's input
    SignalBuffer mix_;       // mixin output
    SignalBuffer film_in_;   // FiLM-modulated copy of x or of the condition
    SignalBuffer pre_;       // blended: z before activation
    SignalBuffer head_;      // head1x1 output

    bool fused_ = false;
    infer::NamWaveNetLayer kernel_{};  // shape and weights; signals filled per block
    std::vector<float> conv_packed_, mixin_packed_, layer1x1_packed_, head1x1_packed_;  // input-major
};

}  // namespace forge::nam
