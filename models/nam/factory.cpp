#include "models/nam/factory.h"

#include "core/error.h"
#include "models/nam/container.h"
#include "models/nam/convnet.h"
#include "models/nam/linear.h"
#include "models/nam/lstm.h"
#include "models/nam/wavenet.h"

#include <fmt/format.h>

#include <functional>
#include <map>

namespace forge::nam {
namespace {

double sample_rate_of(const NamFile& file) { return file.sample_rate.value_or(-1.0); }

std::unique_ptr<Model> make_wavenet(const NamFile& file, const ModelOptions& options) {
    const JsonReader config(file.config, file.source, "config");
    WaveNetConfig wc = parse_wavenet_config(config, options.load);
    std::span<const float> weights = file.weights;
    SlimmedWaveNet slimmed;
    if (options.slim && is_slimmable_wavenet(config)) {
        slimmed = slim_wavenet(wc, weights, *options.slim, file.source);
        wc = slimmed.config;
        weights = slimmed.weights;
    }
    std::unique_ptr<Model> condition;
    if (wc.condition_dsp) {
        const NamFile nested = parse_nam(*wc.condition_dsp, file.source + " (config.condition_dsp)");
        if (sample_rate_of(nested) != sample_rate_of(file))
            config.fail_field("condition_dsp", fmt::format("sample rate {} differs from the model's {}",
                                                           sample_rate_of(nested), sample_rate_of(file)));
        condition = make_model(nested, {options.load, std::nullopt, options.nesting + 1});
    }
    return std::make_unique<WaveNet>(wc, weights, file.source, std::move(condition));
}

std::unique_ptr<Model> make_lstm(const NamFile& file, const ModelOptions& options) {
    const JsonReader config(file.config, file.source, "config");
    return std::make_unique<Lstm>(parse_lstm_config(config), file.weights, file.source, sample_rate_of(file),
                                  options.load);
}

std::unique_ptr<Model> make_convnet(const NamFile& file, const ModelOptions& options) {
    return std::make_unique<ConvNet>(JsonReader(file.config, file.source, "config"), file.weights, file.source,
                                     options.load);
}

std::unique_ptr<Model> make_linear(const NamFile& file, const ModelOptions&) {
    return std::make_unique<Linear>(JsonReader(file.config, file.source, "config"), file.weights, file.source);
}

std::unique_ptr<Model> make_container(const NamFile& file, const ModelOptions& options) {
    const JsonReader list = JsonReader(file.config, file.source, "config").child("submodels");
    const std::size_t n = list.array_size();
    if (n == 0) list.fail("a SlimmableContainer needs at least one submodel");
    std::vector<Container::Submodel> submodels;
    std::vector<double> max_values;
    for (std::size_t i = 0; i < n; ++i) {
        const JsonReader entry = list.element(i);
        const double max_value = entry.number("max_value");
        if (i > 0 && max_value <= max_values.back()) entry.fail_field("max_value", "must be ascending");
        const NamFile nested = parse_nam(entry.child("model").value(), fmt::format("{} ({}.model)", file.source, entry.path()));
        const double rate = sample_rate_of(nested);
        if (rate > 0 && sample_rate_of(file) > 0 && rate != sample_rate_of(file))
            entry.fail(fmt::format("submodel sample rate {} differs from the container's {}", rate, sample_rate_of(file)));
        submodels.push_back({max_value, make_model(nested, {options.load, std::nullopt, options.nesting + 1})});
        max_values.push_back(max_value);
    }
    if (max_values.back() < 1.0) list.fail("the last submodel's max_value must be at least 1.0");
    const std::size_t active = options.slim ? Container::index_for(max_values, *options.slim) : n - 1;
    return std::make_unique<Container>(std::move(submodels), active);
}

using Builder = std::function<std::unique_ptr<Model>(const NamFile&, const ModelOptions&)>;

const std::map<std::string, Builder>& builders() {
    static const std::map<std::string, Builder> table = {
        {"WaveNet", make_wavenet},    {"LSTM", make_lstm},
        {"ConvNet", make_convnet},    {"Linear", make_linear},
        {"SlimmableContainer", make_container},
    };
    return table;
}

}  // namespace

std::unique_ptr<Model> make_model(const NamFile& file, const ModelOptions& options) {
    const auto it = builders().find(file.architecture);
    if (it == builders().end())
        fail_format("{}: architecture: unknown architecture \"{}\" (known: WaveNet, LSTM, ConvNet, "
                    "Linear, SlimmableContainer)",
                    file.source, file.architecture);
    if (options.nesting > kMaxModelNesting)
        fail_format("{}: config: models nested more than {} deep (containers, condition DSPs)",
                    file.source, kMaxModelNesting);
    if (options.slim && (*options.slim < 0.0 || *options.slim > 1.0))
        throw Error(fmt::format("slimmable size {} is outside [0, 1]", *options.slim));
    try {
        return it->second(file, options);
    } catch (const nlohmann::json::exception& e) {
        fail_format("{}: config: {}", file.source, e.what());
    }
}

bool is_slimmable(const NamFile& file) {
    if (file.architecture == "SlimmableContainer") return true;
    return file.architecture == "WaveNet" && is_slimmable_wavenet(JsonReader(file.config, file.source, "config"));
}

}  // namespace forge::nam
