// Training the spirals classifier with a gradient optimizer (SGD, AdamW, Muon) or with
// evolution strategies, full batch, reporting progress as it goes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace forge::spirals {

enum class Method { Sgd, AdamW, Muon, Es };

Method parse_method(const std::string& name);  // "sgd", "adamw", "muon", "es"
std::string method_name(Method method);

struct TrainConfig {
    Method method = Method::AdamW;
    std::int64_t steps = 0;  // 0: the method's default
    std::uint64_t seed = 0;
    std::int64_t hidden = 0;  // 0: the method's default (ES searches a smaller space)
    std::int64_t per_class = 200;
    std::int64_t report_every = 0;  // 0: ten reports over the run
};

struct Progress {
    std::int64_t step;  // steps done
    float loss;
    float accuracy;  // fraction of training points classified correctly
    double steps_per_second;
};

struct TrainResult {
    float loss;
    float accuracy;
    std::int64_t steps;
    double seconds;
};

std::int64_t default_steps(Method method);
std::int64_t default_hidden(Method method);

TrainResult train(const TrainConfig& config, const std::function<void(const Progress&)>& report = {});

}  // namespace forge::spirals
