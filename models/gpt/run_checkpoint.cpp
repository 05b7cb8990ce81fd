#include "models/gpt/run_checkpoint.h"

#include "core/checkpoint/safetensors.h"
#include "core/error.h"
#include "core/json.h"

#include <charconv>
#include <string>

namespace forge::gpt {
namespace {

constexpr const char* kFormat = "forge-gpt-checkpoint-1";
const std::string kParam = "param.", kOptimizer = "optimizer.";

checkpoint::Metadata read_metadata(const std::filesystem::path& path, checkpoint::TensorMap* tensors) {
    check(std::filesystem::exists(path), "no checkpoint at {}", path.string());
    checkpoint::Metadata metadata;
    checkpoint::TensorMap all = checkpoint::read_safetensors(path, &metadata);
    if (metadata["format"] != kFormat) fail_format("{}: not a {} file", path.string(), kFormat);
    if (tensors) *tensors = std::move(all);
    return metadata;
}

const std::string& metadata_text(const checkpoint::Metadata& m, const std::string& key, const std::filesystem::path& path) {
    const auto it = m.find(key);
    if (it == m.end()) fail_format("{}: metadata has no '{}'", path.string(), key);
    return it->second;
}

// A count forge wrote as decimal digits; anything else (a sign, spaces, a number past
// int64) is a damaged or foreign file, named as such rather than std::stoll's one word.
std::int64_t metadata_int(const checkpoint::Metadata& m, const std::string& key, const std::filesystem::path& path) {
    const std::string& text = metadata_text(m, key, path);
    std::int64_t value = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 0)
        fail_format("{}: metadata '{}' is not a count: \"{}\"", path.string(), key, text);
    return value;
}

}  // namespace

void save_run_checkpoint(const std::filesystem::path& path, const GptModel& model, const GptOptimizer& optimizer,
                         std::int64_t step, const nlohmann::json& settings) {
    checkpoint::TensorMap all;
    for (const auto& [name, t] : model.params().state_dict()) all[kParam + name] = t;
    const optim::OptimizerState state = optimizer.state();
    for (const auto& [name, t] : state.tensors) all[kOptimizer + name] = t;
    checkpoint::write_safetensors(path, all,
                                  {{"format", kFormat},
                                   {"step", std::to_string(step)},
                                   {"optimizer_step", std::to_string(state.step)},
                                   {"settings", settings.dump()}});
}

nlohmann::json read_checkpoint_settings(const std::filesystem::path& path) {
    const checkpoint::Metadata m = read_metadata(path, nullptr);
    const std::string where = fmt::format("{}: metadata 'settings'", path.string());
    nlohmann::json settings = parse_json(std::string_view(metadata_text(m, "settings", path)), where, kMaxDocumentDepth);
    if (!settings.is_object() || !settings.contains("steps") || !settings["steps"].is_number_integer() ||
        settings["steps"].get<std::int64_t>() < 1)
        fail_format("{}: expected an object with a positive integer \"steps\"", where);
    return settings;
}

void load_checkpoint_params(const std::filesystem::path& path, GptModel& model) {
    checkpoint::TensorMap all, params;
    read_metadata(path, &all);
    for (auto& [name, t] : all) {
        if (name.rfind(kParam, 0) == 0) params[name.substr(kParam.size())] = t;
    }
    model.params().load_state_dict(params, path.string());
}

std::int64_t load_run_checkpoint(const std::filesystem::path& path, GptModel& model, GptOptimizer& optimizer) {
    checkpoint::TensorMap all;
    const checkpoint::Metadata m = read_metadata(path, &all);
    checkpoint::TensorMap params;
    optim::OptimizerState state{metadata_int(m, "optimizer_step", path), {}};
    for (auto& [name, t] : all) {
        if (name.rfind(kParam, 0) == 0) params[name.substr(kParam.size())] = t;
        if (name.rfind(kOptimizer, 0) == 0) state.tensors[name.substr(kOptimizer.size())] = t;
    }
    model.params().load_state_dict(params, path.string());
    optimizer.load_state(state);
    return metadata_int(m, "step", path);
}

}  // namespace forge::gpt
