#include "models/nam/container.h"

#include <fmt/format.h>

namespace forge::nam {

Container::Container(std::vector<Submodel> submodels, std::size_t active)
    : submodels_(std::move(submodels)), active_(active) {}

std::size_t Container::index_for(const std::vector<double>& max_values, double size) {
    for (std::size_t i = 0; i < max_values.size(); ++i)
        if (size < max_values[i]) return i;
    return max_values.size() - 1;
}

std::string Container::describe() const {
    return fmt::format("SlimmableContainer: {} submodels, playing #{} (max_value {}): {}", submodels_.size(),
                       active_, submodels_[active_].max_value, active().describe());
}

}  // namespace forge::nam
