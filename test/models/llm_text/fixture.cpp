#include "test/models/llm_text/fixture.h"

#include "core/error.h"
#include "models/llm/tokenizer/tokenizer.h"


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

}  // namespace forge::llm::test
