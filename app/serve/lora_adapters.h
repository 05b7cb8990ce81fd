// The LoRA adapters `forge serve --lora A.gguf[:SCALE]` applies, as llama-server exposes them:
// GET /lora-adapters lists them ([{"id", "path", "scale"}]), POST /lora-adapters sets the
// global scales, and a completion or chat request may bring its own ("lora": [{"id": 0,
// "scale": 0.5}]). As in llama-server, a list sets the scales of the adapters it names and
// 0 for the others.
#pragma once

#include <nlohmann/json.hpp>

#include <mutex>
#include <string>
#include <vector>

namespace forge::app::serve {

// One scale per adapter from a llama-server "lora" list; ApiError 400 naming the field at
// `param` ("lora[1].id") for anything but objects with an id of an adapter and a finite scale.
std::vector<float> parse_lora_scales(const nlohmann::ordered_json& list, std::size_t n_adapters, const std::string& param);

// The scales requests without their own "lora" run with (POST /lora-adapters changes them).
class GlobalLoraScales {
public:
    explicit GlobalLoraScales(std::vector<float> scales) : scales_(std::move(scales)) {}
    std::vector<float> get() const {
        std::lock_guard lock(mutex_);
        return scales_;
    }
    void set(std::vector<float> scales) {
        std::lock_guard lock(mutex_);
        scales_ = std::move(scales);
    }

private:
    mutable std::mutex mutex_;
    std::vector<float> scales_;
};

}  // namespace forge::app::serve
