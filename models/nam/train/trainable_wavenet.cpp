#include "models/nam/train/trainable_wavenet.h"

#include "core/autograd/ag.h"
#include "core/error.h"
#include "models/nam/train/param_init.h"

#include <cmath>
#include <cstring>

namespace forge::nam::train {
namespace {

Tensor conv(const Tensor& x, const Tensor& w, const Tensor& b, int dilation = 1) {
    return ag::conv1d(x, w, b, {.dilation = dilation, .padding = Conv1dPadding::Valid});
}

// The last `length` samples along time: how the reference trainer aligns a residual or a
// head sum with a shorter (valid-convolved) branch.
Tensor last(const Tensor& x, std::int64_t length) { return ag::narrow(x, 2, x.size(2) - length, length); }

}  // namespace

TrainableWaveNet::TrainableWaveNet(WaveNetSpec spec, std::uint64_t seed) : spec_(std::move(spec)), rng_state_(seed) {
    check(!spec_.arrays.empty(), "a WaveNet needs at least one layer array");
    for (const LayerArraySpec& a : spec_.arrays) {
        Array array;
        array.rechannel_w = make_param({a.channels, a.input_size, 1}, a.input_size);
        for (int d : a.dilations) {
            Layer layer;
            layer.dilation = d;
            layer.conv_w = make_param({a.channels, a.channels, a.kernel_size}, static_cast<long>(a.channels) * a.kernel_size);
            layer.conv_b = make_param({a.channels}, static_cast<long>(a.channels) * a.kernel_size);
            layer.mixin_w = make_param({a.channels, a.condition_size, 1}, a.condition_size);
            layer.layer1x1_w = make_param({a.channels, a.channels, 1}, a.channels);
            layer.layer1x1_b = make_param({a.channels}, a.channels);
            array.layers.push_back(std::move(layer));
        }
        array.head_w = make_param({a.head_size, a.channels, 1}, a.channels);
        if (a.head_bias) array.head_b = make_param({a.head_size}, a.channels);
        arrays_.push_back(std::move(array));
    }
}

Tensor TrainableWaveNet::make_param(const Shape& shape, long fan_in) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    const std::vector<float> values = uniform_init(static_cast<std::size_t>(shape.product()), bound, rng_state_);
    Tensor p = ag::requires_grad(Tensor::from(std::span<const float>(values), shape));
    params_.push_back(p);
    return p;
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
    for (const Tensor& p : params_) {
        const Tensor c = p.contiguous();
        const auto values = c.span<float>();
        out.insert(out.end(), values.begin(), values.end());
    }
    out.push_back(spec_.head_scale);
    return out;
}

void TrainableWaveNet::load_nam_weights(std::span<const float> weights) {
    std::size_t at = 0;
    for (const Tensor& p : params_) {
        const auto n = static_cast<std::size_t>(p.numel());
        check(at + n <= weights.size(), "load_nam_weights: {} weights is too few", weights.size());
        check(p.is_contiguous(), "load_nam_weights: parameter is not contiguous");
        std::memcpy(p.span<float>().data(), weights.data() + at, n * sizeof(float));
        at += n;
    }
    check(at + 1 == weights.size(), "load_nam_weights: expected {} weights, got {}", at + 1, weights.size());
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
