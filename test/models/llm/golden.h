// The committed llama.cpp goldens (test/data/llm/, made by tools/llm_goldens/regen.py): a
// random-weight model, llama.cpp's logits and argmax for every prompt position and its 32-token
// greedy continuation, once with an f32 KV cache (NAME.*) and once with llama.cpp's default
// f16 KV cache (NAME.kv-f16.*); one model with a Q8_0 KV cache (NAME.kv-q8_0.*).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace forge::llm::test {

inline std::string golden_path(const std::string& file) { return std::string(FORGE_LLM_TEST_DATA) + "/" + file; }

struct Golden {
    std::string model_path;
    std::vector<std::int32_t> prompt;
    std::vector<std::int32_t> greedy;
    std::vector<std::int32_t> argmax;  // llama.cpp's at each prompt position
    std::vector<float> logits;  // [prompt.size(), n_vocab]
};

enum class OracleKv { F32, F16, Q8_0 };  // the KV cache llama.cpp ran with

// The suffix of a golden's files for the cache llama.cpp ran with (f32: none).
inline std::string kv_suffix(OracleKv kv) {
    switch (kv) {
        case OracleKv::F32: return "";
        case OracleKv::F16: return ".kv-f16";
        case OracleKv::Q8_0: return ".kv-q8_0";
    }
    return "";
}

inline Golden load_golden(const std::string& name, OracleKv kv = OracleKv::F32) {
    Golden g;
    g.model_path = golden_path(name + ".gguf");
    const std::string stem = name + kv_suffix(kv);
    std::ifstream json_file(golden_path(stem + ".json"));
    if (!json_file) throw std::runtime_error("missing golden " + golden_path(stem + ".json"));
    const auto json = nlohmann::json::parse(json_file);
    g.prompt = json.at("eval_tokens").get<std::vector<std::int32_t>>();
    g.greedy = json.at("greedy").get<std::vector<std::int32_t>>();
    g.argmax = json.at("argmax").get<std::vector<std::int32_t>>();
    std::ifstream logits_file(golden_path(stem + ".logits.f32"), std::ios::binary | std::ios::ate);
    const auto bytes = static_cast<std::size_t>(logits_file.tellg());
    g.logits.resize(bytes / sizeof(float));
    logits_file.seekg(0);
    logits_file.read(reinterpret_cast<char*>(g.logits.data()), static_cast<std::streamsize>(bytes));
    return g;
}

}  // namespace forge::llm::test
