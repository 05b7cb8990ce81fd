#include "core/checkpoint/checkpoint.h"

#include "core/checkpoint/atomic_file.h"
#include "core/json.h"
#include "core/error.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>

namespace forge::checkpoint {
namespace {

constexpr const char* kParamPrefix = "param.";
constexpr const char* kOptimizerPrefix = "optimizer.";
constexpr int kFormatVersion = 1;

std::filesystem::path with_suffix(const std::filesystem::path& base, const char* suffix) {
    return base.string() + suffix;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The tensors file the checkpoint at `base` names now ("" if there is none or it is unreadable).
std::string current_tensors_file(const std::filesystem::path& base) {
    try {
        std::ifstream in(with_suffix(base, ".json"));
        if (!in.good()) return "";
        const auto info = parse_json(in, with_suffix(base, ".json").string(), 8);
        return info.is_object() && info.contains("tensors") && info["tensors"].is_string() ? info["tensors"].get<std::string>()
                                                                                          : "";
    } catch (const Error&) {
        return "";
    }
}

}  // namespace

void save_checkpoint(const std::filesystem::path& base, const Checkpoint& checkpoint) {
    TensorMap all;
    for (const auto& [name, t] : checkpoint.params) all[kParamPrefix + name] = t;
    for (const auto& [name, t] : checkpoint.optimizer.tensors) all[kOptimizerPrefix + name] = t;
    // Double-buffered: the tensors go to whichever of <base>.0/.1.safetensors the current
    // JSON does not name, and the JSON (written last, atomically) switches to them. A kill at
    // any moment leaves a JSON naming a complete tensors file: the old checkpoint or the new.
    const std::string current = current_tensors_file(base);
    const std::string name = base.filename().string();
    const std::string fresh = current == name + ".0.safetensors" ? name + ".1.safetensors" : name + ".0.safetensors";
    const std::filesystem::path folder = base.parent_path();
    write_safetensors(folder / fresh, all, {{"format", "forge-checkpoint"}});
    const nlohmann::json info = {{"format", "forge-checkpoint"},
                                 {"version", kFormatVersion},
                                 {"step", checkpoint.step},
                                 {"seed", checkpoint.seed},
                                 {"optimizer_step", checkpoint.optimizer.step},
                                 {"tensors", fresh}};
    write_file_atomically(with_suffix(base, ".json"), info.dump(2) + "\n");
    if (!current.empty() && current != fresh && current.find('/') == std::string::npos) {
        std::error_code ignored;  // the previous checkpoint's tensors: no JSON names them any more
        std::filesystem::remove(folder / current, ignored);
    }
}

Checkpoint load_checkpoint(const std::filesystem::path& base) {
    std::ifstream in(with_suffix(base, ".json"));
    check(in.good(), "no checkpoint at {} (missing {})", base.string(), with_suffix(base, ".json").string());
    const auto info = parse_json(in, with_suffix(base, ".json").string(), 8);
    Checkpoint checkpoint;
    try {
        if (!info.is_object() || info.value("format", "") != "forge-checkpoint" || info.value("version", 0) != kFormatVersion) {
            fail_format("{}: not a forge checkpoint of version {}", base.string(), kFormatVersion);
        }
        checkpoint.step = info.at("step").get<std::int64_t>();
        checkpoint.seed = info.at("seed").get<std::uint64_t>();
        checkpoint.optimizer.step = info.at("optimizer_step").get<std::int64_t>();
    } catch (const nlohmann::json::exception& e) {  // a missing field or one of the wrong type
        fail_format("{}: {}", with_suffix(base, ".json").string(), json_error_text(e));
    }
    // The tensors file the JSON names, in the same folder (no path: a JSON cannot point elsewhere).
    const std::string tensors = info.contains("tensors") && info["tensors"].is_string() ? info["tensors"].get<std::string>()
                                                                                       : with_suffix(base, ".safetensors").filename().string();
    if (tensors.empty() || tensors.find('/') != std::string::npos || tensors == "." || tensors == "..")
        fail_format("{}: tensors: '{}' is not a file name", with_suffix(base, ".json").string(), tensors);
    for (auto& [name, t] : read_safetensors(base.parent_path() / tensors)) {
        if (starts_with(name, kParamPrefix)) {
            checkpoint.params[name.substr(std::strlen(kParamPrefix))] = t;
        } else if (starts_with(name, kOptimizerPrefix)) {
            checkpoint.optimizer.tensors[name.substr(std::strlen(kOptimizerPrefix))] = t;
        }
    }
    return checkpoint;
}

void restore_params(const TensorMap& saved, const TensorMap& live) {
    for (const auto& [name, target] : live) {
        const auto it = saved.find(name);
        check(it != saved.end(), "checkpoint has no parameter '{}'", name);
        check(it->second.shape() == target.shape() && it->second.dtype() == target.dtype(),
              "checkpoint parameter '{}' differs in shape or dtype from the model's", name);
        check(target.is_contiguous(), "parameter '{}' must be contiguous to restore in place", name);
        std::memcpy(target.raw_data(), it->second.raw_data(), target.nbytes());
    }
}

}  // namespace forge::checkpoint
