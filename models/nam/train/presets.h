// The architecture presets of the reference trainer (sdatkinson/neural-amp-modeler,
// nam/train/core.py: get_wavenet_config, get_lstm_config): "standard", "lite", "feather" and
// "nano" WaveNets, and the LSTM sizes of the same names.
//
// Every WaveNet preset is two layer arrays of non-gated Tanh layers with kernel size 3; the
// first array's head (size h) feeds the second, whose head of size 1 is the output, scaled
// by head_scale = 0.02.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace forge::nam::train {

struct LayerArraySpec {
    int input_size = 1;
    int condition_size = 1;
    int channels = 1;
    int head_size = 1;
    int kernel_size = 3;
    bool head_bias = false;
    std::vector<int> dilations;
};

struct WaveNetSpec {
    std::vector<LayerArraySpec> arrays;
    float head_scale = 0.02f;

    // Samples of input one output sample depends on: 1 + Σ (kernel_size - 1)·dilation.
    long receptive_field() const;
};

// The reference's LSTM (nam/models/recurrent.py): stacked layers of `hidden_size`, a linear
// head; training runs the first `train_burn_in` samples of each window without gradient to
// the outputs, then chunks of `train_truncate` samples with the state detached between them.
struct LstmSpec {
    int num_layers = 1;
    int hidden_size = 24;
    int train_burn_in = 4096;
    int train_truncate = 512;
};

enum class Preset { Standard, Lite, Feather, Nano };

// "standard" | "lite" | "feather" | "nano" (throws on anything else).
Preset parse_preset(const std::string& name);
const char* preset_name(Preset preset);

WaveNetSpec wavenet_preset(Preset preset);
LstmSpec lstm_preset(Preset preset);

// The "config" object of a .nam file for this WaveNet (the trainer's export layout: legacy
// head_size / head_bias per array, no post-stack head).
nlohmann::json wavenet_nam_config(const WaveNetSpec& spec);

}  // namespace forge::nam::train
