// The WordPiece tokenizer (models/llm/tokenizer/wordpiece.h) against llama.cpp's ids, id for id:
// the texts of test/data/bert/bert-mean.json were tokenized by node-llama-cpp 3.22.1
// (tools/bert_oracle.mjs: [CLS] + llama_tokenize(text, parse_special false) + [SEP]) with the
// vocabulary tools/make_bert_gguf.py writes. They cover case, accents, CJK, punctuation, ASCII
// and other symbols, whitespace runs, a control character and words with no token ([UNK]).
#include "core/gguf/gguf_file.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "models/llm/tokenizer/wordpiece.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace forge::llm {
namespace {

std::string data_path(const std::string& file) { return std::string(FORGE_BERT_TEST_DATA) + "/" + file; }

Tokenizer bert_tokenizer() { return Tokenizer::from_gguf(gguf::GgufFile::open(data_path("bert-mean.gguf"))); }

TEST(WordPiece, TokenIdsMatchLlamaCpp) {
    std::ifstream in(data_path("bert-mean.json"));
    const auto golden = nlohmann::json::parse(in);
    const Tokenizer tokenizer = bert_tokenizer();
    ASSERT_FALSE(golden["texts"].empty());
    for (const auto& item : golden["texts"]) {
        const auto text = item["text"].get<std::string>();
        EXPECT_EQ(tokenizer.encode(text, /*add_special=*/true, /*parse_special=*/false),
                  item["tokens"].get<std::vector<std::int32_t>>())
            << text;
    }
}

TEST(WordPiece, SpecialTokensAreClsAndSep) {
    const Tokenizer tokenizer = bert_tokenizer();
    EXPECT_EQ(tokenizer.bos_id(), 101);
    EXPECT_EQ(tokenizer.vocab().special().sep, 102);
    EXPECT_EQ(tokenizer.vocab().special().unk, 100);
    EXPECT_EQ(tokenizer.encode("", true, false), (std::vector<std::int32_t>{101, 102}));
}

TEST(WordPiece, ParsedSpecialTokensStayWhole) {
    const auto ids = bert_tokenizer().encode("[CLS] x [SEP]", false, /*parse_special=*/true);
    EXPECT_EQ(ids, (std::vector<std::int32_t>{101, 150, 102}));
}

TEST(WordPiece, NormalisesAndSplitsAsBert) {
    const auto words = WordPieceTokenizer::split_words("Café,NAÏVE\u4e2d\u6587 a$b\u0007c  ");
    EXPECT_EQ(words, (std::vector<std::string>{"cafe", ",", "naive", "\u4e2d", "\u6587", "a", "$", "bc"}));
}

TEST(WordPiece, DecodesWordStartsAsSpaces) {
    const Tokenizer tokenizer = bert_tokenizer();
    const auto ids = tokenizer.encode("hello world", false, false);
    EXPECT_EQ(tokenizer.decode(ids), " hello world");
}

}  // namespace
}  // namespace forge::llm
