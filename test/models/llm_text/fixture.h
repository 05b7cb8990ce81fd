// Loading the committed tokenizer fixtures: gzip-compressed tokenizer-only GGUFs (the Qwen3
// vocabulary is 5.9 MB raw, 1.7 MB compressed) and the JSON goldens next to them.
#pragma once

#include "core/gguf/gguf_file.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace forge::llm {
class Tokenizer;
}

namespace forge::llm::test {

std::string data_path(const std::string& name);
std::vector<std::byte> read_gzip(const std::string& path);
nlohmann::json read_json(const std::string& path);

// A parsed GGUF that owns its bytes.
struct OwnedGguf {
    std::vector<std::byte> bytes;
    gguf::GgufFile file;
};
OwnedGguf load_gguf_gz(const std::string& name);

}  // namespace forge::llm::test
