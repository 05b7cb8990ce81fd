// Comparing a tokenizer's ids with llama.cpp's on the committed goldens (GoogleTest
// expectations, so apart from fixture.h, which the tokenizer fuzzer links without GoogleTest).
#pragma once

#include <string>

namespace forge::llm {
class Tokenizer;
}

namespace forge::llm::test {

// Every text under `name` in the golden file (tools/llm_text/tokenize_oracle.mjs writes them),
// encoded with and without special-token parsing, must give llama.cpp's ids. Returns how
// many texts were compared.
int expect_matches_llama_cpp(const Tokenizer& tokenizer, const std::string& golden_file, const std::string& name);

}  // namespace forge::llm::test
