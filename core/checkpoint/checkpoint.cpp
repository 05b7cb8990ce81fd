#include "core/checkpoint/checkpoint.h"

#include "core/checkpoint/atomic_file.h"
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

}  // namespace

void save_checkpoint(const std::filesystem::path& base, const Checkpoint& checkpoint) {
    TensorMap all;
    for (const auto& [name, t] : checkpoint.params) all[kParamPrefix + name] = t;
    for (const auto& [name, t] : checkpoint.optimizer.tensors) all[kOptimizerPrefix + name] = t;
    write_safetensors(with_suffix(base, ".safetensors"), all, {{"format", "forge-checkpoint"}});
    const nlohmann::json info = {{"format", "forge-checkpoint"},
                                 {"version", kFormatVersion},
                                 {"step", checkpoint.step},
                                 {"seed", checkpoint.seed},
                                 {"optimizer_step", checkpoint.optimizer.step},
                                 {"tensors", with_suffix(base, ".safetensors").filename().string()}};
    write_file_atomically(with_suffix(base, ".json"), info.dump(2) + "\n");
}

Checkpoint load_checkpoint(const std::filesystem::path& base) {
    std::ifstream in(with_suffix(base, ".json"));
    check(in.good(), "no checkpoint at {} (missing {})", base.string(), with_suffix(base, ".json").string());
    const auto info = nlohmann::json::parse(in);
    if (info.value("format", "") != "forge-checkpoint" || info.value("version", 0) != kFormatVersion) {
        throw FormatError(fmt::format("{}: not a forge checkpoint of version {}", base.string(), kFormatVersion));
    }
    Checkpoint checkpoint;
    checkpoint.step = info.at("step").get<std::int64_t>();
    checkpoint.seed = info.at("seed").get<std::uint64_t>();
    checkpoint.optimizer.step = info.at("optimizer_step").get<std::int64_t>();
    for (auto& [name, t] : read_safetensors(with_suffix(base, ".safetensors"))) {
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
