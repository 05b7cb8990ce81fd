#include "app/bundled_models.h"

#include "core/error.h"

#include <spdlog/spdlog.h>

#include <filesystem>

namespace forge::app {

std::string bundled_model_path(const BundledModel& model) {
    const std::filesystem::path installed = std::filesystem::path(FORGE_INSTALLED_DATA_DIR) / model.family / model.file;
    const std::filesystem::path source =
        std::filesystem::path(FORGE_SOURCE_MODELS_DIR) / model.family / "bundled" / model.file;
    for (const auto& path : {installed, source}) {
        if (std::filesystem::exists(path)) return path.string();
    }
    fail("the bundled model {} is in neither {} nor {}", model.file, installed.parent_path().string(),
         source.parent_path().string());
}

std::string resolve_model(const std::string& argument, const BundledModel& bundled) {
    if (!argument.empty() && argument != "default") {
        check(std::filesystem::is_regular_file(argument), "{}: no such model file", argument);
        return argument;
    }
    const std::string path = bundled_model_path(bundled);
    spdlog::info("model: {} (the bundled default)", path);
    return path;
}

}  // namespace forge::app
