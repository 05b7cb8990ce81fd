// The architecture names of `forge nam train --arch`: a WaveNet preset by its name
// ("standard", "lite", "feather", "nano"), or an LSTM as "lstm-SIZE" with the same sizes
// ("lstm" alone is "lstm-standard"), as the reference trainer's presets (presets.h).
#pragma once

#include "models/nam/train/presets.h"
#include "models/nam/train/trainer.h"

#include <string>
#include <vector>

namespace forge::nam::train {

struct ArchitectureChoice {
    Architecture architecture = Architecture::WaveNet;
    Preset preset = Preset::Standard;
};

// Throws on a name that is not one of architecture_names().
ArchitectureChoice parse_architecture(const std::string& name);

// Every name parse_architecture accepts, WaveNets first.
const std::vector<std::string>& architecture_names();

}  // namespace forge::nam::train
