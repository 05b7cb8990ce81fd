#include "test/models/llm_text/fixture.h"

#include "core/error.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <gtest/gtest.h>

#include <zlib.h>

#include <fstream>
#include <map>
#include <memory>

namespace forge::llm::test {

std::string data_path(const std::string& name) { return std::string(FORGE_LLM_TEXT_DATA) + "/" + name; }

std::vector<std::byte> read_gzip(const std::string& path) {
    const std::unique_ptr<gzFile_s, decltype(&gzclose)> file(gzopen(path.c_str(), "rb"), &gzclose);
    check(file != nullptr, "cannot open {}", path);
    std::vector<std::byte> out;
    std::byte buffer[1 << 16];
    for (int n; (n = gzread(file.get(), buffer, sizeof buffer)) > 0;) out.insert(out.end(), buffer, buffer + n);
    return out;
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    check(in.good(), "cannot open {}", path);
    return nlohmann::json::parse(in);
}

OwnedGguf load_gguf_gz(const std::string& name) {
    OwnedGguf owned{read_gzip(data_path(name)), {}};
    owned.file = gguf::GgufFile::parse(owned.bytes, name);
    return owned;
}

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
