// The committed llama.cpp goldens (test/data/llm/, made by tools/llm_goldens/regen.py): a
// random-weight model, llama.cpp's logits for every prompt position (f32 KV cache) and its
// 32-token greedy continuation.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace forge::llm::test {

inline std::string golden_path(const std::string& file) { return std::string(FORGE_LLM_TEST_DATA) + "/" + file; }

struct Golden {
    std::string model_path;
    std::vector<std::int32_t> prompt;
    std::vector<std::int32_t> greedy;
    std::vector<float> logits;  // [prompt.size(), n_vocab]
};

inline Golden load_golden(const std::string& name) {
    Golden g;
    g.model_path = golden_path(name + ".gguf");
    std::ifstream json_file(golden_path(name + ".json"));
    const auto json = nlohmann::json::parse(json_file);
    g.prompt = json.at("eval_tokens").get<std::vector<std::int32_t>>();
    g.greedy = json.at("greedy").get<std::vector<std::int32_t>>();
    std::ifstream logits_file(golden_path(name + ".logits.f32"), std::ios::binary | std::ios::ate);
    const auto bytes = static_cast<std::size_t>(logits_file.tellg());
    g.logits.resize(bytes / sizeof(float));
    logits_file.seekg(0);
    logits_file.read(reinterpret_cast<char*>(g.logits.data()), static_cast<std::streamsize>(bytes));
    return g;
}

}  // namespace forge::llm::test
