#include "models/nam/wavenet_layer.h"

#include "core/infer/activation.h"
#include "core/infer/row_ops.h"

#include <algorithm>
#include <cstring>

namespace forge::nam {
namespace {

void copy_rows(ConstSignal from, Signal to, int rows, int frames) noexcept {
    for (int c = 0; c < rows; ++c)
        std::memcpy(to.row(c), from.row(c), static_cast<std::size_t>(frames) * sizeof(float));
}

// y += x over `rows` rows.
void add_rows(ConstSignal x, Signal y, int rows, int frames) noexcept {
    const auto n = static_cast<std::size_t>(frames);
    for (int c = 0; c < rows; ++c) {
        infer::add_rows({y.row(c), n}, {x.row(c), n});
    }
}

// Core's [out][in][K] as [K][in][out]: each (tap, input) pair's weights for all outputs are
// contiguous, the order in which the fused kernel broadcasts them.
std::vector<float> input_major(const ConvWeights& w) {
    const ConvShape& s = w.shape();
    std::vector<float> packed(static_cast<std::size_t>(s.out_channels) * s.in_channels * s.kernel_size);
    for (int o = 0; o < s.out_channels; ++o)
        for (int c = 0; c < s.in_channels; ++c)
            for (int k = 0; k < s.kernel_size; ++k)
                packed[(static_cast<std::size_t>(k) * s.in_channels + c) * s.out_channels + o] =
                    w.weight()[(static_cast<std::size_t>(o) * s.in_channels + c) * s.kernel_size + k];
    return packed;
}

int doubled_if_gated(const LayerArrayConfig& a, const WaveNetLayerConfig& l) {
    return l.gating == Gating::None ? a.bottleneck : 2 * a.bottleneck;
}

}  // namespace

std::optional<Film> WaveNetLayer::make_film(int condition, int channels, const FilmConfig& config,
                                            WeightCursor& weights, const std::string& what) {
    if (!config.active) return std::nullopt;
    return std::optional<Film>(std::in_place, condition, channels, config, weights, what);
}

// Weights in Core's order (Layer::set_weights_): conv, input mixin, layer1x1, head1x1, then
// the FiLMs conv_pre, conv_post, mixin_pre, mixin_post, activation_pre, activation_post,
// layer1x1_post, head1x1_post.
WaveNetLayer::WaveNetLayer(const LayerArrayConfig& a, const WaveNetLayerConfig& l, WeightCursor& w,
                           const std::string& what)
    : channels_(a.channels),
      bottleneck_(a.bottleneck),
      condition_size_(a.condition_size),
      gating_(l.gating),
      activation_(l.activation),
      secondary_(l.secondary),
      conv_({a.channels, doubled_if_gated(a, l), l.kernel_size, l.dilation, a.groups_input, true}, w, what + " conv"),
      mixin_({a.condition_size, doubled_if_gated(a, l), 1, 1, a.groups_input_mixin, false}, w, what + " input_mixin") {
    const int bg = doubled_if_gated(a, l);
    const int c = a.condition_size;
    if (a.layer1x1_active)
        layer1x1_.emplace(ConvShape{a.bottleneck, a.channels, 1, 1, a.layer1x1_groups, true}, w, what + " layer1x1");
    if (a.head1x1_active)
        head1x1_.emplace(ConvShape{a.bottleneck, a.head1x1_out_channels, 1, 1, a.head1x1_groups, true}, w,
                         what + " head1x1");
    conv_pre_ = make_film(c, a.channels, a.conv_pre, w, what + " conv_pre_film");
    conv_post_ = make_film(c, bg, a.conv_post, w, what + " conv_post_film");
    mixin_pre_ = make_film(c, c, a.mixin_pre, w, what + " input_mixin_pre_film");
    mixin_post_ = make_film(c, bg, a.mixin_post, w, what + " input_mixin_post_film");
    activation_pre_ = make_film(c, bg, a.activation_pre, w, what + " activation_pre_film");
    activation_post_ = make_film(c, a.bottleneck, a.activation_post, w, what + " activation_post_film");
    layer1x1_post_ = make_film(c, a.channels, a.layer1x1_post, w, what + " layer1x1_post_film");
    head1x1_post_ = make_film(c, a.head1x1_out_channels, a.head1x1_post, w, what + " head1x1_post_film");
}

bool WaveNetLayer::fits_fused_kernel() const {
    for (const auto* film : {&conv_pre_, &conv_post_, &mixin_pre_, &mixin_post_, &activation_pre_, &activation_post_,
                             &layer1x1_post_, &head1x1_post_})
        if (*film) return false;
    const auto ungrouped = [](const std::optional<Conv1x1>& c) { return !c || c->weights().shape().groups == 1; };
    return conv_.weights().shape().groups == 1 && mixin_.weights().shape().groups == 1 && ungrouped(layer1x1_) &&
           ungrouped(head1x1_) && !activation_.per_channel() && !secondary_.per_channel();
}

// Shape and weights of the fused kernel's call. Run at prepare time, once the layer has
// reached its final place in memory (the call holds pointers into its members).
void WaveNetLayer::pack_fused_weights() {
    conv_packed_ = input_major(conv_.weights());
    mixin_packed_ = input_major(mixin_.weights());
    if (layer1x1_) layer1x1_packed_ = input_major(layer1x1_->weights());
    if (head1x1_) head1x1_packed_ = input_major(head1x1_->weights());
    infer::NamWaveNetLayer& k = kernel_;
    k.channels = channels_;
    k.bottleneck = bottleneck_;
    k.condition_size = condition_size_;
    k.kernel_size = conv_.kernel_size();
    k.dilation = conv_.dilation();
    k.gating = gating_;
    k.activation = activation_.op();
    k.activation_params = activation_.params();
    k.secondary = secondary_.op();
    k.secondary_params = secondary_.params();
    k.conv = conv_packed_.data();
    k.conv_bias = conv_.weights().bias();
    k.mixin = mixin_packed_.data();
    k.layer1x1 = layer1x1_ ? layer1x1_packed_.data() : nullptr;
    k.layer1x1_bias = layer1x1_ ? layer1x1_->weights().bias() : nullptr;
    k.head1x1 = head1x1_ ? head1x1_packed_.data() : nullptr;
    k.head1x1_bias = head1x1_ ? head1x1_->weights().bias() : nullptr;
    k.head_size = head1x1_ ? head1x1_->out_channels() : bottleneck_;
}

void WaveNetLayer::prepare(int max_frames) {
    fused_ = fits_fused_kernel();
    conv_.prepare(max_frames);
    z_.resize(conv_.out_channels(), max_frames);
    if (fused_) {
        pack_fused_weights();
        return;
    }
    x_.resize(channels_, max_frames);
    mix_.resize(conv_.out_channels(), max_frames);
    film_in_.resize(std::max(channels_, condition_size_), max_frames);
    if (gating_ == Gating::Blended) pre_.resize(bottleneck_, max_frames);
    if (head1x1_) head_.resize(head1x1_->out_channels(), max_frames);
    for (auto* film : {&conv_pre_, &conv_post_, &mixin_pre_, &mixin_post_, &activation_pre_, &activation_post_,
                       &layer1x1_post_, &head1x1_post_})
        if (*film) (*film)->prepare(max_frames);
}

Signal WaveNetLayer::input(int frames) noexcept { return fused_ ? conv_.input_block(frames) : x_.signal(); }

void WaveNetLayer::process(ConstSignal condition, Signal next, Signal head_sum, int frames, bool next_wanted) noexcept {
    if (!fused_) {
        process_general(condition, next, head_sum, frames);
        return;
    }
    infer::NamWaveNetLayer k = kernel_;
    const ConstSignal x = conv_.window();
    k.input = x.data;
    k.input_stride = x.stride;
    k.condition = condition.data;
    k.condition_stride = condition.stride;
    k.z = z_.signal().data;  // dense: rows × frames
    k.next = next_wanted ? next.data : nullptr;
    k.next_stride = next.stride;
    k.head = head_sum.data;
    k.head_stride = head_sum.stride;
    k.frames = frames;
    infer::nam_wavenet_layer(k);
    conv_.advance(frames);
}

void WaveNetLayer::activate(ConstSignal condition, int frames) noexcept {
    const Signal z = z_.signal();
    const Signal bottom = z_.rows(bottleneck_);
    const auto n = static_cast<std::size_t>(frames);
    switch (gating_) {
        case Gating::None: activation_.apply(z, bottleneck_, frames); break;
        case Gating::Gated:
            activation_.apply(z, bottleneck_, frames);
            secondary_.apply(bottom, bottleneck_, frames);
            for (int c = 0; c < bottleneck_; ++c) infer::gate({z.row(c), n}, {bottom.row(c), n});
            break;
        case Gating::Blended:
            copy_rows(z, pre_.signal(), bottleneck_, frames);
            activation_.apply(z, bottleneck_, frames);
            secondary_.apply(bottom, bottleneck_, frames);
            for (int c = 0; c < bottleneck_; ++c)
                infer::blend({z.row(c), n}, {bottom.row(c), n}, {pre_.signal().row(c), n});
            break;
    }
    if (activation_post_) activation_post_->apply(z, condition, frames);
}

void WaveNetLayer::process_general(ConstSignal condition, Signal next, Signal head_sum, int frames) noexcept {
    const ConstSignal x = x_.signal();
    const Signal z = z_.signal();
    ConstSignal conv_in = x;
    if (conv_pre_) {
        copy_rows(x, film_in_.signal(), channels_, frames);
        conv_pre_->apply(film_in_.signal(), condition, frames);
        conv_in = film_in_.signal();
    }
    conv_.process(conv_in, z, frames);
    if (conv_post_) conv_post_->apply(z, condition, frames);

    ConstSignal mixin_in = condition;
    if (mixin_pre_) {
        copy_rows(condition, film_in_.signal(), condition_size_, frames);
        mixin_pre_->apply(film_in_.signal(), condition, frames);
        mixin_in = film_in_.signal();
    }
    mixin_.process(mixin_in, mix_.signal(), frames);
    if (mixin_post_) mixin_post_->apply(mix_.signal(), condition, frames);
    add_rows(mix_.signal(), z, conv_.out_channels(), frames);
    if (activation_pre_) activation_pre_->apply(z, condition, frames);

    activate(condition, frames);

    if (layer1x1_) {
        layer1x1_->process(z, next, frames);
        if (layer1x1_post_ && gating_ == Gating::Blended) layer1x1_post_->apply(next, condition, frames);
        add_rows(x, next, channels_, frames);
    } else {
        copy_rows(x, next, channels_, frames);
    }
    if (head1x1_) {
        head1x1_->process(z, head_.signal(), frames);
        if (head1x1_post_) head1x1_post_->apply(head_.signal(), condition, frames);
        add_rows(head_.signal(), head_sum, head1x1_->out_channels(), frames);
    } else {
        add_rows(z, head_sum, bottleneck_, frames);
    }
}

}  // namespace forge::nam
