// libFuzzer target for the tokenizers (Qwen3 byte-level BPE, Llama 2 SentencePiece, a tiny
// BPE): arbitrary bytes in, ids out, and back. The first byte picks the tokenizer and the
// options. Valid UTF-8 must survive the round trip exactly (SentencePiece adds its leading
// space); invalid UTF-8 is sanitized on the way in and must not crash.
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "test/models/llm_text/fixture.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Loaded {
    forge::llm::test::OwnedGguf gguf;
    forge::llm::Tokenizer tokenizer;
    bool sentencepiece;
};

std::vector<std::unique_ptr<Loaded>> load_all() {
    std::vector<std::unique_ptr<Loaded>> all;
    for (const auto& [name, spm] : {std::pair{"qwen3-tokenizer.gguf.gz", false}, std::pair{"llama2-spm-tokenizer.gguf.gz", true}}) {
        auto gguf = forge::llm::test::load_gguf_gz(name);
        auto tokenizer = forge::llm::Tokenizer::from_gguf(gguf.file);
        all.push_back(std::make_unique<Loaded>(Loaded{std::move(gguf), std::move(tokenizer), spm}));
    }
    return all;
}

bool valid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > s.size()) return false;
        std::uint32_t cp = n == 1 ? c : c & (0x7F >> n);
        for (std::size_t k = 1; k < n; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d >> 6) != 2) return false;
            cp = (cp << 6) | (d & 0x3F);
        }
        static const std::uint32_t min_for[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_for[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += n;
    }
    return true;
}


// Loaded once (two whole vocabularies, from gzip): seconds under the
// sanitizers, which libFuzzer counted against the first input's timeout when they were loaded
// there (a false "timeout" on a loaded machine).
const std::vector<std::unique_ptr<Loaded>>& tokenizers() {
    static const auto all = load_all();
    return all;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    (void)tokenizers();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto& loaded = tokenizers();
    if (size == 0) return 0;
    const Loaded& t = *loaded[data[0] % loaded.size()];
    const bool parse_special = (data[0] & 2) != 0, add_special = (data[0] & 4) != 0;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        const auto ids = t.tokenizer.encode(text, add_special, parse_special);
        const std::string back = t.tokenizer.decode(ids, parse_special);
        const bool checkable = !parse_special && !add_special && !text.empty() && valid_utf8(text) &&
                               text.find('\0') == std::string::npos &&
                               // SentencePiece: "▁" is a space there, and a user-defined token such as
                               // "<tool>" gets a space after it (llama.cpp's add_space_prefix rule)
                               (!t.sentencepiece || (text.find("\xE2\x96\x81") == std::string::npos &&
                                                     text.find('<') == std::string::npos));
        if (checkable && back != (t.sentencepiece ? " " + text : text)) std::abort();  // a round-trip bug
    } catch (const forge::Error&) {
        // Allowed: an error for input the tokenizer refuses (none expected so far).
    }
    return 0;
}
