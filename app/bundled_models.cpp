#include "app/bundled_models.h"

#include "core/error.h"

#include <filesystem>

namespace forge::app {

std::string bundled_model_path(std::string_view family, std::string_view file) {
    const std::filesystem::path installed = std::filesystem::path(FORGE_INSTALLED_DATA_DIR) / family / file;
    const std::filesystem::path source = std::filesystem::path(FORGE_SOURCE_MODELS_DIR) / family / "bundled" / file;
    for (const auto& path : {installed, source}) {
        if (std::filesystem::exists(path)) return path.string();
    }
    fail("the bundled model {} is in neither {} nor {}", file, installed.parent_path().string(),
         source.parent_path().string());
}

std::string llm_model_path(const std::string& model) {
    if (!model.empty() && model != "default") return model;
    return bundled_model_path("llm", "forge-chat.gguf");
}

}  // namespace forge::app
