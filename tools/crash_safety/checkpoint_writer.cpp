// The checkpoint side of tools/crash_safety.sh: writes a checkpoint whose every value is a
// function of its step, or verifies that the checkpoint on disk is one whole checkpoint
// (every tensor matching the JSON's step) rather than a torn mix of two.
//
//   checkpoint_writer write BASE STEP MIB     (MIB: size of the parameter tensor)
//   checkpoint_writer verify BASE             (prints the step; exit 1 if torn or unreadable)
#include "core/checkpoint/checkpoint.h"
#include "core/error.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

using forge::Tensor;
using forge::checkpoint::Checkpoint;

float value_at(std::int64_t step, std::int64_t i) { return static_cast<float>(step * 1000 + i % 1000); }

Checkpoint make(std::int64_t step, std::int64_t mib) {
    const std::int64_t n = mib * (1 << 20) / 4;
    Tensor w = Tensor::zeros({n});
    Tensor m = Tensor::zeros({n / 4});
    float* wp = w.data<float>();
    float* mp = m.data<float>();
    for (std::int64_t i = 0; i < n; ++i) wp[i] = value_at(step, i);
    for (std::int64_t i = 0; i < n / 4; ++i) mp[i] = value_at(step, i) + 0.5f;
    Checkpoint c;
    c.params["w"] = w;
    c.optimizer.tensors["m"] = m;
    c.optimizer.step = step;
    c.step = step;
    c.seed = static_cast<std::uint64_t>(step) * 7;
    return c;
}

bool whole(const Checkpoint& c) {
    const auto& w = c.params.at("w");
    const auto& m = c.optimizer.tensors.at("m");
    if (c.optimizer.step != c.step || c.seed != static_cast<std::uint64_t>(c.step) * 7) return false;
    const float* wp = w.data<float>();
    const float* mp = m.data<float>();
    for (std::int64_t i = 0; i < w.numel(); ++i)
        if (wp[i] != value_at(c.step, i)) return false;
    for (std::int64_t i = 0; i < m.numel(); ++i)
        if (mp[i] != value_at(c.step, i) + 0.5f) return false;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "write" && argc == 5) {
            forge::checkpoint::save_checkpoint(argv[2], make(std::stoll(argv[3]), std::stoll(argv[4])));
            return 0;
        }
        if (mode == "verify" && argc == 3) {
            const Checkpoint c = forge::checkpoint::load_checkpoint(argv[2]);
            if (!whole(c)) {
                fmt::print(stderr, "torn checkpoint: values do not match step {}\n", c.step);
                return 1;
            }
            fmt::print("{}\n", c.step);
            return 0;
        }
        fmt::print(stderr, "usage: checkpoint_writer write BASE STEP MIB | verify BASE\n");
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "checkpoint_writer: {}\n", e.what());
        return 1;
    }
}
