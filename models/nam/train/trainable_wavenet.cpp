#include "models/nam/train/trainable_wavenet.h"

#include "core/autograd/ag.h"
#include "core/error.h"

#include <fmt/format.h>

namespace forge::nam::train {
namespace {

// Every convolution is valid (unpadded): the output shrinks by the taps' span.
Conv1dOptions unpadded(int dilation = 1) { return {.dilation = dilation, .padding = Conv1dPadding::Valid}; }

// The last `length` samples along time: how the reference trainer aligns a residual or a
// head sum with a shorter (valid-convolved) branch.
Tensor last(const Tensor& x, std::int64_t length) { return ag::narrow(x, 2, x.size(2) - length, length); }

}  // namespace

// Parameter names follow the reference trainer's modules (nam/models/wavenet/: _LayerArray's
// _rechannel, _layers[i]._conv, _input_mixer, _1x1, and _head_rechannel).
TrainableWaveNet::TrainableWaveNet(WaveNetSpec spec, std::uint64_t seed)
    : TrainableModel(seed), spec_(std::move(spec)) {
    check(!spec_.arrays.empty(), "a WaveNet needs at least one layer array");
    for (std::size_t i = 0; i < spec_.arrays.size(); ++i) {
        const LayerArraySpec& a = spec_.arrays[i];
        const std::string prefix = fmt::format("layer_arrays.{}.", i);
        Array array;
        array.rechannel = nn::Conv1d::make(params_, prefix + "rechannel", a.input_size, a.channels, 1, unpadded(),
                                           /*with_bias=*/false);
        for (std::size_t l = 0; l < a.dilations.size(); ++l) {
            const std::string layer_prefix = fmt::format("{}layers.{}.", prefix, l);
            Layer layer;
            layer.conv = nn::Conv1d::make(params_, layer_prefix + "conv", a.channels, a.channels, a.kernel_size,
                                          unpadded(a.dilations[l]));
            layer.mixin = nn::Conv1d::make(params_, layer_prefix + "input_mixer", a.condition_size, a.channels, 1,
                                           unpadded(), /*with_bias=*/false);
            layer.layer1x1 =
                nn::Conv1d::make(params_, layer_prefix + "layer1x1", a.channels, a.channels, 1, unpadded());
            array.layers.push_back(std::move(layer));
        }
        array.head = nn::Conv1d::make(params_, prefix + "head_rechannel", a.channels, a.head_size, 1, unpadded(),
                                      a.head_bias);
        arrays_.push_back(std::move(array));
    }
}

// One layer array (reference: _LayerArray.forward): rechannel, then each layer's
// z = conv(x) + mixin(condition); a = tanh(z); x <- x + layer1x1(a); head <- head + a;
// finally the head rechannel. `x` comes in as the array's input and leaves as its residual
// output, which the next array takes as input.
Tensor TrainableWaveNet::array_forward(const Array& array, const Tensor& condition, Tensor& x,
                                       const Tensor& head_in) const {
    x = array.rechannel(x);
    Tensor head = head_in;
    for (const Layer& layer : array.layers) {
        Tensor z = layer.conv(x);
        const std::int64_t n = z.size(2);
        z = ag::add(z, layer.mixin(last(condition, n)));
        const Tensor a = ag::tanh(z);
        head = head.defined() ? ag::add(last(head, n), a) : a;
        x = ag::add(last(x, n), layer.layer1x1(a));
    }
    return array.head(head);
}

Tensor TrainableWaveNet::forward(const Tensor& x) const {
    check(x.rank() == 2, "TrainableWaveNet::forward: expected [batch, time], got rank {}", x.rank());
    check(x.size(1) >= receptive_field(), "TrainableWaveNet::forward: {} samples is shorter than the receptive field {}",
          x.size(1), receptive_field());
    const Tensor condition = ag::unsqueeze(x, 1);
    Tensor y = condition, head;
    for (const Array& array : arrays_) head = array_forward(array, condition, y, head);
    return ag::squeeze(ag::mul(head, spec_.head_scale), 1);
}

std::vector<float> TrainableWaveNet::nam_weights() const {
    std::vector<float> out;
    for (const nn::Parameter& p : params_.all()) {
        const Tensor c = p.value.contiguous();
        const auto values = c.span<float>();
        out.insert(out.end(), values.begin(), values.end());
    }
    out.push_back(spec_.head_scale);
    return out;
}

NamFile TrainableWaveNet::to_nam_file(double sample_rate) const {
    NamFile file;
    file.source = "trained WaveNet";
    file.version = std::string(kLatestVersion);
    file.architecture = "WaveNet";
    file.config = wavenet_nam_config(spec_);
    file.weights = nam_weights();
    file.sample_rate = sample_rate;
    return file;
}

}  // namespace forge::nam::train
