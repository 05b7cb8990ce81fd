#include "app/serve/lora_adapters.h"

#include "app/serve/api_error.h"

#include <fmt/format.h>

#include <cmath>

namespace forge::app::serve {

std::vector<float> parse_lora_scales(const nlohmann::ordered_json& list, std::size_t n_adapters, const std::string& param) {
    if (!list.is_array()) {
        throw invalid_request(fmt::format("'{}' must be an array of {{\"id\": adapter id, \"scale\": number}}", param), param);
    }
    std::vector<float> scales(n_adapters, 0.0f);
    for (std::size_t i = 0; i < list.size(); ++i) {
        const nlohmann::ordered_json& entry = list[i];
        const std::string at = fmt::format("{}[{}]", param, i);
        if (!entry.is_object()) throw invalid_request(fmt::format("'{}' must be an object with an id and a scale", at), at);
        const auto id = entry.find("id");
        if (id == entry.end() || !id->is_number_integer() || id->get<std::int64_t>() < 0 ||
            id->get<std::int64_t>() >= static_cast<std::int64_t>(n_adapters)) {
            throw invalid_request(n_adapters == 0 ? fmt::format("'{}.id': this server has no LoRA adapters", at)
                                                  : fmt::format("'{}.id' must be an adapter id, 0 to {} (GET /lora-adapters lists them)",
                                                                at, n_adapters - 1),
                                  at + ".id", "invalid_lora_id");
        }
        const auto scale = entry.find("scale");
        if (scale == entry.end() || !scale->is_number() || !std::isfinite(scale->get<double>())) {
            throw invalid_request(fmt::format("'{}.scale' must be a finite number", at), at + ".scale");
        }
        scales[static_cast<std::size_t>(id->get<std::int64_t>())] = scale->get<float>();
    }
    return scales;
}

}  // namespace forge::app::serve
