#include "app/serve/residency_policy.h"

#include <algorithm>

namespace forge::app::serve {

namespace {

bool fits(std::size_t models, std::uint64_t bytes, const ResidencyLimits& limits) {
    return (limits.max_models == 0 || models <= limits.max_models) && (limits.max_bytes == 0 || bytes <= limits.max_bytes);
}

}  // namespace

std::optional<std::vector<std::string>> models_to_unload(std::span<const Resident> resident, std::uint64_t incoming_bytes,
                                                         const ResidencyLimits& limits) {
    std::size_t models = resident.size() + 1;
    std::uint64_t bytes = incoming_bytes;
    for (const Resident& r : resident) bytes += r.bytes;

    std::vector<const Resident*> idle;
    for (const Resident& r : resident) {
        if (!r.in_use) idle.push_back(&r);
    }
    std::ranges::sort(idle, {}, &Resident::last_used);

    std::vector<std::string> unload;
    for (const Resident* r : idle) {
        if (fits(models, bytes, limits)) break;
        unload.push_back(r->id);
        models -= 1;
        bytes -= r->bytes;
    }
    if (!fits(models, bytes, limits)) return std::nullopt;
    return unload;
}

}  // namespace forge::app::serve
