// Which loaded models make room for another: least recently used first, never one in use.
//
// `forge serve` with many models keeps at most --models-max of them loaded and, with
// --models-memory, at most that many bytes of their files. Loading one more unloads the
// least recently used models that no request holds until both limits hold with it. The policy
// is a pure function of what is loaded, so that it is tested without models
// (test/app/serve_registry_test.cpp); model_registry.h applies it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace forge::app::serve {

struct ResidencyLimits {
    std::size_t max_models = 0;  // models loaded at once (0: no limit)
    std::uint64_t max_bytes = 0;  // bytes of their files at once (0: no limit)
};

// A model loaded (or being loaded: then it is in use).
struct Resident {
    std::string id;
    std::uint64_t bytes = 0;
    std::uint64_t last_used = 0;  // larger is more recent
    bool in_use = false;          // a request holds it, or it is loading: never unloaded
};

// The ids to unload, least recently used first, so that a model of `incoming_bytes` fits
// beside the rest; std::nullopt when it cannot fit without unloading a model in use.
std::optional<std::vector<std::string>> models_to_unload(std::span<const Resident> resident, std::uint64_t incoming_bytes,
                                                         const ResidencyLimits& limits);

}  // namespace forge::app::serve
