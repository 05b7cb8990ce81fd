// A WaveNet built from differentiable ops (core/autograd), trained by the trainer and
// exported to a .nam file that the real-time engine (and NeuralAmpModelerCore) plays.
//
// The forward pass is the reference trainer's (nam/models/wavenet/, _Layer and
// _LayerArray): valid (unpadded) dilated convolutions, so an input window of T samples gives
// T - receptive_field + 1 outputs, each of which sees a full receptive field. Streaming
// inference is the same function once its history is full, which is what the export test
// checks.
#pragma once

#include "core/tensor.h"
#include "models/nam/nam_file.h"
#include "models/nam/train/presets.h"
#include "models/nam/train/trainable_model.h"
#include "nn/conv1d.h"

#include <cstdint>
#include <string>
#include <vector>

namespace forge::nam::train {

class TrainableWaveNet final : public TrainableModel {
public:
    // Weights drawn as PyTorch's Conv1d does, U(-1/sqrt(fan_in), 1/sqrt(fan_in)), each from
    // the stream of (seed, its name).
    TrainableWaveNet(WaveNetSpec spec, std::uint64_t seed);

    // x [B, T] -> y [B, T - receptive_field() + 1]. Records a graph when grad mode is on.
    Tensor forward(const Tensor& x) const override;

    long receptive_field() const override { return spec_.receptive_field(); }
    const WaveNetSpec& spec() const { return spec_; }

    // The flat .nam weight list: the parameters in insertion order, which is Core's (per array
    // rechannel, per layer conv weight and bias, input mixin, layer1x1 weight and bias, then
    // head rechannel), and last head_scale.
    std::vector<float> nam_weights() const;

    // A complete .nam document: architecture, config, weights, 48 kHz.
    NamFile to_nam_file(double sample_rate) const override;

private:
    struct Layer {
        nn::Conv1d conv, mixin, layer1x1;  // mixin without a bias
    };
    struct Array {
        nn::Conv1d rechannel, head;  // rechannel without a bias, head without one unless head_bias
        std::vector<Layer> layers;
    };

    Tensor array_forward(const Array& array, const Tensor& condition, Tensor& x, const Tensor& head_in) const;

    WaveNetSpec spec_;
    std::vector<Array> arrays_;
};

}  // namespace forge::nam::train
