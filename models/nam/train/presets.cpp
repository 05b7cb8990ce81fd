#include "models/nam/train/presets.h"

#include "core/error.h"

namespace forge::nam::train {
namespace {

// The dilation patterns of the reference presets: "standard" repeats 1..512 twice; the
// smaller ones split the same span unevenly, 7 layers then 13.
const std::vector<int> kOctave = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
const std::vector<int> kShortFirst = {1, 2, 4, 8, 16, 32, 64};
const std::vector<int> kLongSecond = {128, 256, 512, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

WaveNetSpec two_arrays(int channels, int head, const std::vector<int>& first, const std::vector<int>& second) {
    WaveNetSpec spec;
    spec.arrays.push_back({.input_size = 1, .channels = channels, .head_size = head, .dilations = first});
    spec.arrays.push_back({.input_size = channels, .channels = head, .head_size = 1, .head_bias = true,
                           .dilations = second});
    return spec;
}

}  // namespace

long WaveNetSpec::receptive_field() const {
    long rf = 1;
    for (const LayerArraySpec& a : arrays)
        for (int d : a.dilations) rf += static_cast<long>(a.kernel_size - 1) * d;
    return rf;
}

Preset parse_preset(const std::string& name) {
    if (name == "standard") return Preset::Standard;
    if (name == "lite") return Preset::Lite;
    if (name == "feather") return Preset::Feather;
    if (name == "nano") return Preset::Nano;
    fail("unknown architecture preset '{}' (expected standard, lite, feather, nano or lstm)", name);
}

const char* preset_name(Preset preset) {
    switch (preset) {
        case Preset::Standard: return "standard";
        case Preset::Lite: return "lite";
        case Preset::Feather: return "feather";
        case Preset::Nano: return "nano";
    }
    return "?";
}

WaveNetSpec wavenet_preset(Preset preset) {
    switch (preset) {
        case Preset::Standard: return two_arrays(16, 8, kOctave, kOctave);
        case Preset::Lite: return two_arrays(12, 6, kShortFirst, kLongSecond);
        case Preset::Feather: return two_arrays(8, 4, kShortFirst, kLongSecond);
        case Preset::Nano: return two_arrays(4, 2, kShortFirst, kLongSecond);
    }
    fail("unknown preset");
}

LstmSpec lstm_preset(Preset preset) {
    switch (preset) {
        case Preset::Standard: return {1, 24};
        case Preset::Lite: return {2, 8};
        case Preset::Feather: return {1, 16};
        case Preset::Nano: return {1, 12};
    }
    fail("unknown preset");
}

nlohmann::json wavenet_nam_config(const WaveNetSpec& spec) {
    nlohmann::json layers = nlohmann::json::array();
    for (const LayerArraySpec& a : spec.arrays)
        layers.push_back({{"input_size", a.input_size}, {"condition_size", a.condition_size},
                          {"channels", a.channels}, {"head_size", a.head_size}, {"kernel_size", a.kernel_size},
                          {"dilations", a.dilations}, {"activation", "Tanh"}, {"gated", false},
                          {"head_bias", a.head_bias}});
    return {{"layers", layers}, {"head", nullptr}, {"head_scale", spec.head_scale}};
}

}  // namespace forge::nam::train
