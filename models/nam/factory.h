// Building a playable model from a .nam file: the factory looks up the architecture's name
// ("WaveNet", "LSTM", "ConvNet", "Linear", "SlimmableContainer") and hands the config and
// weights to that class, as Core's ConfigParserRegistry does (NAM/registry.h).
#pragma once

#include "models/nam/activation.h"
#include "models/nam/model.h"
#include "models/nam/nam_file.h"

#include <memory>
#include <optional>

namespace forge::nam {

struct ModelOptions {
    LoadOptions load;
    // The slimmable size in [0, 1] (Core render's --slim): picks a SlimmableContainer
    // submodel or a slimmable WaveNet's width. None: the full model.
    std::optional<double> slim;
    // How deep inside other models (SlimmableContainer submodels, condition DSPs) this one
    // is; at most kMaxModelNesting. Each level copies the JSON below it.
    int nesting = 0;
};

inline constexpr int kMaxModelNesting = 4;

std::unique_ptr<Model> make_model(const NamFile& file, const ModelOptions& options = {});

// True if --slim means something for this file.
bool is_slimmable(const NamFile& file);

}  // namespace forge::nam
