#include "models/llm/tokenizer/pre_tokenizer.h"

#include "core/error.h"

#include <algorithm>
#include <array>

namespace forge::llm {

namespace {

// The patterns are those of the models' tokenizer.json files, as llama.cpp adapts them
// (llama-vocab.cpp, llm_tokenizer_bpe): "(?i:'s|...)" spelled out case by case. One change for
// PCRE2: llama.cpp's whitespace class includes U+0085 (NEXT LINE), which PCRE2's \s does not,
// so \s is written [\s\x{85}] and \S [^\s\x{85}].

// GPT-2 (openai/gpt-2 encoder.py).
constexpr std::string_view kGpt2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\x{85}\p{L}\p{N}]+|[\s\x{85}]+(?![^\s\x{85}]))";

// Llama 3: digits in groups of up to three, a letter run may take one leading non-letter.
constexpr std::string_view kLlama3 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3})"
    R"(| ?[^\s\x{85}\p{L}\p{N}]+[\r\n]*|[\s\x{85}]*[\r\n]+|[\s\x{85}]+(?![^\s\x{85}])|[\s\x{85}]+)";

// Qwen2 / Qwen3: as Llama 3 but every digit on its own.
constexpr std::string_view kQwen2 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N})"
    R"(| ?[^\s\x{85}\p{L}\p{N}]+[\r\n]*|[\s\x{85}]*[\r\n]+|[\s\x{85}]+(?![^\s\x{85}])|[\s\x{85}]+)";

// GPT-4o's o200k (gpt-oss, Llama 4) as llama.cpp runs it, which is not quite tiktoken's pattern.
// llama.cpp has no \p{Lu}/\p{Ll} for non-ASCII text: it rewrites the pattern so that an
// upper-case letter is "a letter that is not a-z" and a lower-case one "a letter that is not
// A-Z" (so any non-ASCII letter is both), with \p{M} left out of the letter runs, and runs it
// with std::regex. [^\P{L}a-z] is that "letter but not a-z". The effect: "ÉCOLE" splits
// "É" + "COLE" (tiktoken keeps it whole) and a combining mark is not part of a word.
constexpr std::string_view kGpt4o =
    R"([^\r\n\p{L}\p{N}]?[^\P{L}a-z]*[^\P{L}A-Z]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?)"
    R"(|[^\r\n\p{L}\p{N}]?[^\P{L}a-z]+[^\P{L}A-Z]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?)"
    R"(|\p{N}{1,3}| ?[^\s\x{85}\p{L}\p{N}]+[\r\n/]*|[\s\x{85}]*[\r\n]+|[\s\x{85}]+(?![^\s\x{85}])|[\s\x{85}]+)";

// llama.cpp's fallback for BPE vocabularies without a known pre-tokenizer.
constexpr std::array<std::string_view, 4> kDefault = {
    R"([\p{P}\$\+<=>\^~\|]+)",
    kGpt2,
    R"(\p{N}+)",
    R"([0-9][0-9][0-9])",
};

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

PreTokenizer::PreTokenizer(std::string_view name) {
    if (one_of(name, {"llama3", "llama-v3", "llama-bpe"})) {
        regexes_.emplace_back(std::string(kLlama3));
        ignore_merges_ = true;
        add_bos_default_ = true;
    } else if (name == "smaug-bpe") {
        regexes_.emplace_back(std::string(kLlama3));  // Llama 3's words, merges applied to every word
    } else if (one_of(name, {"qwen2", "deepseek-r1-qwen"})) {
        regexes_.emplace_back(std::string(kQwen2));
    } else if (one_of(name, {"gpt-4o", "llama4"})) {
        regexes_.emplace_back(std::string(kGpt4o));
    } else if (one_of(name, {"gpt-2", "phi-2", "gigachat", "roberta-bpe"})) {
        regexes_.emplace_back(std::string(kGpt2));
    } else if (one_of(name, {"", "default"})) {
        for (const auto pattern : kDefault) regexes_.emplace_back(std::string(pattern));
    } else {
        fail_format("tokenizer.ggml.pre = '{}' is not supported (known: gpt-2, gpt-4o, llama-bpe, smaug-bpe, qwen2, default)", name);
    }
}

std::vector<std::string_view> PreTokenizer::split(std::string_view text) const {
    std::vector<std::string_view> pieces{text};
    std::vector<std::string_view> refined;
    for (const Pcre2Regex& regex : regexes_) {
        refined.clear();
        for (const std::string_view piece : pieces) regex.split(piece, refined);
        pieces.swap(refined);
    }
    return pieces;
}

}  // namespace forge::llm
