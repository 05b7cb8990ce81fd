#include "models/nam/train/architecture_name.h"

namespace forge::nam::train {

namespace {
constexpr std::string_view kLstmPrefix = "lstm-";
}  // namespace

ArchitectureChoice parse_architecture(const std::string& name) {
    if (name == "lstm") return {Architecture::Lstm, Preset::Standard};
    if (name.starts_with(kLstmPrefix)) return {Architecture::Lstm, parse_preset(name.substr(kLstmPrefix.size()))};
    return {Architecture::WaveNet, parse_preset(name)};
}

const std::vector<std::string>& architecture_names() {
    static const std::vector<std::string> names{"standard",      "lite",      "feather",      "nano",     "lstm",
                                                "lstm-standard", "lstm-lite", "lstm-feather", "lstm-nano"};
    return names;
}

}  // namespace forge::nam::train
