// The real Qwen3 vocabulary (151,669 tokens, test/data/llm_text/qwen3-tokenizer.gguf.gz) and its
// grammar index, loaded once for the grammar tests.
#pragma once

#include "models/llm/grammar/vocabulary_index.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "test/models/llm_text/fixture.h"

#include <memory>

namespace forge::llm::test {

struct Qwen3Vocabulary {
    OwnedGguf gguf = load_gguf_gz("qwen3-tokenizer.gguf.gz");
    Tokenizer tokenizer = Tokenizer::from_gguf(gguf.file);
    std::shared_ptr<const grammar::VocabularyIndex> index = std::make_shared<const grammar::VocabularyIndex>(tokenizer);
};

inline Qwen3Vocabulary& qwen3_vocabulary() {
    static Qwen3Vocabulary v;
    return v;
}

}  // namespace forge::llm::test
