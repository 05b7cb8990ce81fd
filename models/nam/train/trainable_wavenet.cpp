#include "models/nam/train/trainable_wavenet.h"

#include "core/autograd/ag.h"
#include "core/error.h"

#include <fmt/format.h>

namespace forge::nam::train {
namespace {

Tensor conv(const Tensor& x, const Tensor& w, const Tensor& b, int dilation = 1) {
    return ag::conv1d(x, w, b, {.dilation = dilation, .padding = Conv1dPadding::Valid});
}

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
        const long conv_fan_in = static_cast<long>(a.channels) * a.kernel_size;
        Array array;
        array.rechannel_w = make_param(prefix + "rechannel.weight", {a.channels, a.input_size, 1}, a.input_size);
        for (std::size_t l = 0; l < a.dilations.size(); ++l) {
            const std::string layer_prefix = fmt::format("{}layers.{}.", prefix, l);
            Layer layer;
            layer.dilation = a.dilations[l];
            layer.conv_w = make_param(layer_prefix + "conv.weight", {a.channels, a.channels, a.kernel_size}, conv_fan_in);
            layer.conv_b = make_param(layer_prefix + "conv.bias", {a.channels}, conv_fan_in);
            layer.mixin_w = make_param(layer_prefix + "input_mixer.weight", {a.channels, a.condition_size, 1},
                                       a.condition_size);
            layer.layer1x1_w = make_param(layer_prefix + "layer1x1.weight", {a.channels, a.channels, 1}, a.channels);
            layer.layer1x1_b = make_param(layer_prefix + "layer1x1.bias", {a.channels}, a.channels);
            array.layers.push_back(std::move(layer));
        }
        array.head_w = make_param(prefix + "head_rechannel.weight", {a.head_size, a.channels, 1}, a.channels);
        if (a.head_bias) array.head_b = make_param(prefix + "head_rechannel.bias", {a.head_size}, a.channels);
        arrays_.push_back(std::move(array));
    }
}

Tensor TrainableWaveNet::make_param(const std::string& name, const Shape& shape, long fan_in) {
    return params_.add(name, shape, nn::Init::fan_in_uniform(fan_in));
}

// One layer array (reference: _LayerArray.forward): rechannel, then each layer's
// z = conv(x) + mixin(condition); a = tanh(z); x <- x + layer1x1(a); head <- head + a;
// finally the head rechannel. `x` comes in as the array's input and leaves as its residual
// output, which the next array takes as input.
Tensor TrainableWaveNet::array_forward(const Array& array, const Tensor& condition, Tensor& x,
                                       const Tensor& head_in) const {
    x = conv(x, array.rechannel_w, Tensor{});
    Tensor head = head_in;
    for (const Layer& layer : array.layers) {
        Tensor z = conv(x, layer.conv_w, layer.conv_b, layer.dilation);
        const std::int64_t n = z.size(2);
        z = ag::add(z, conv(last(condition, n), layer.mixin_w, Tensor{}));
        const Tensor a = ag::tanh(z);
        head = head.defined() ? ag::add(last(head, n), a) : a;
        x = ag::add(last(x, n), conv(a, layer.layer1x1_w, layer.layer1x1_b));
    }
    return conv(head, array.head_w, array.head_b);
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
