#include "test/models/llm_text/llama_cpp_ids.h"

#include "models/llm/tokenizer/tokenizer.h"
#include "test/models/llm_text/fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <vector>

namespace forge::llm::test {

int expect_matches_llama_cpp(const Tokenizer& tokenizer, const std::string& golden_file, const std::string& name) {
    static std::map<std::string, nlohmann::json> files;  // each golden file parsed once
    auto it = files.find(golden_file);
    if (it == files.end()) it = files.emplace(golden_file, read_json(data_path(golden_file))).first;
    const nlohmann::json& goldens = it->second;
    EXPECT_TRUE(goldens.contains(name)) << golden_file << " has no entry " << name;
    if (!goldens.contains(name)) return 0;
    int checked = 0;
    for (const auto& entry : goldens[name]) {
        const auto text = entry["text"].get<std::string>();
        EXPECT_EQ(tokenizer.encode(text, false, false), entry["no_special"].get<std::vector<std::int32_t>>())
            << name << " parse_special=false: " << text;
        EXPECT_EQ(tokenizer.encode(text, false, true), entry["special"].get<std::vector<std::int32_t>>())
            << name << " parse_special=true: " << text;
        ++checked;
    }
    return checked;
}

}  // namespace forge::llm::test
