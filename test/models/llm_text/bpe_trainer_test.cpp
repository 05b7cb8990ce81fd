// BPE training (models/llm/tokenizer/bpe_trainer.h): the merges of a textbook example, the
// same tokenizer on every run, agreement between what the trainer learned and what the
// encoder does with it, the GGUF round trip, and llama.cpp's ids for the trained tokenizer
// (trained_bpe_ids.json, made by tools/llm_text/make_trained_bpe_golden.sh from the same
// committed training text: training is deterministic, so this test trains the very tokenizer
// that llama.cpp was run on).
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "models/llm/chat_template/chat_template.h"
#include "models/llm/tokenizer/bpe_trainer.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "test/models/llm_text/fixture.h"
#include "test/models/llm_text/llama_cpp_ids.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace forge::llm {
namespace {

constexpr std::int32_t kGoldenVocabSize = 512;  // as in make_trained_bpe_golden.sh

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

const std::string& training_text() {
    static const std::string text = read_file(test::data_path("bpe_training_text.txt"));
    return text;
}

TrainedTokenizer train(const std::vector<std::string>& documents, std::int32_t vocab_size,
                       const std::string& pre = "llama-bpe") {
    WordCounts words(pre);
    for (const std::string& text : documents) words.add(text);
    return train_bpe_tokenizer(words, vocab_size);
}

std::string token_bytes(const TrainedTokenizer& t, std::int32_t id) { return t.bpe.tokens.at(static_cast<std::size_t>(id)); }

TEST(BpeTrainer, LearnsTheTextbookMerges) {
    // "aaabdaaabac" (one word): aa occurs 4 times (overlapping) -> "aa"; then "aa a" and "a b"
    // both occur twice and the smaller pair (a, b) wins the tie; then "aa ab".
    const auto t = train({"aaabdaaabac"}, 256 + 3 + 5);
    ASSERT_EQ(t.bpe.merges.size(), 3u);
    EXPECT_EQ(token_bytes(t, 256), "aa");
    EXPECT_EQ(t.bpe.merges[0].count, 4);
    EXPECT_EQ(token_bytes(t, 257), "ab");
    EXPECT_EQ(t.bpe.merges[1].count, 2);
    EXPECT_EQ(token_bytes(t, 258), "aaab");
    const Tokenizer tokenizer(t.vocab());
    EXPECT_EQ(tokenizer.encode("aaabdaaabac", false, false), (std::vector<std::int32_t>{258, 'd', 258, 'a', 'c'}));
}

TEST(BpeTrainer, MergesNeverCrossWords) {
    // " the" and "the" are different words (the space belongs to the word after it): "he",
    // "the", " the", and then every word is one token.
    const auto t = train({"the the the the"}, 256 + 5 + 3);
    ASSERT_EQ(t.bpe.tokens.back(), " the");
    for (std::size_t id = 256; id < t.bpe.tokens.size(); ++id) {
        const std::string& bytes = t.bpe.tokens[id];
        EXPECT_EQ(bytes.find(' ', 1), std::string::npos) << "token '" << bytes << "' spans two words";
    }
}

TEST(BpeTrainer, SameTokenizerOnEveryRunAndInAnyDocumentOrder) {
    const std::string& text = training_text();
    const std::size_t half = text.find('\n', text.size() / 2) + 1;
    const std::string first = text.substr(0, half), second = text.substr(half);
    const auto a = train({first, second}, kGoldenVocabSize).to_gguf().to_bytes();
    const auto b = train({first, second}, kGoldenVocabSize).to_gguf().to_bytes();
    const auto c = train({second, first}, kGoldenVocabSize).to_gguf().to_bytes();
    EXPECT_TRUE(a == b);
    EXPECT_TRUE(a == c);
}

TEST(BpeTrainer, EncoderReproducesTheTrainedSegmentation) {
    // Encoding a word of the training text must give what the merge loop turned it into, so
    // the token count of the text equals the per-word count and decoding gives the text back.
    for (const std::string pre : {"llama-bpe", "qwen2"}) {
        WordCounts words(pre);
        words.add(training_text());
        const auto trained = train_bpe_tokenizer(words, kGoldenVocabSize);
        const Tokenizer tokenizer(trained.vocab());
        const auto ids = tokenizer.encode(training_text(), false, false);
        EXPECT_EQ(static_cast<std::int64_t>(ids.size()), count_tokens(tokenizer, words)) << pre;
        EXPECT_EQ(tokenizer.decode(ids), training_text()) << pre;
        // Compression is real: the 512-token vocabulary at least halves the byte count.
        EXPECT_LT(2 * ids.size(), training_text().size()) << pre;
    }
}

TEST(BpeTrainer, GgufRoundTripGivesTheSameTokenizer) {
    const auto trained = train({training_text()}, kGoldenVocabSize);
    const auto bytes = trained.to_gguf().to_bytes();
    const auto file = gguf::GgufFile::parse(bytes, "trained.gguf");
    const Tokenizer from_file = Tokenizer::from_gguf(file);
    const Tokenizer in_memory(trained.vocab());
    ASSERT_EQ(from_file.n_vocab(), kGoldenVocabSize);
    EXPECT_EQ(from_file.bos_id(), trained.special_id(0));
    EXPECT_TRUE(from_file.is_end_of_generation(trained.special_id(4)));  // <|assistant_end|>
    const std::string text = "<|bos|><|user_start|>Don't merge 12345 tokens?<|user_end|><|assistant_start|>ok";
    EXPECT_EQ(from_file.encode(text, true, true), in_memory.encode(text, true, true));
    EXPECT_EQ(from_file.encode(text, true, true).front(), trained.special_id(0));  // add_bos_token
    EXPECT_EQ(*file.find("tokenizer.chat_template")->string(), trained_chat_template());
}

TEST(BpeTrainer, TooSmallOrTooLargeVocabularyIsAClearError) {
    WordCounts words("llama-bpe");
    words.add("tiny text");
    EXPECT_THROW(train_bpe_tokenizer(words, 100), Error);
    try {
        train_bpe_tokenizer(words, 4096);
        FAIL() << "a 4096-token vocabulary from two words";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("ask for at most 268 tokens"), std::string::npos) << e.what();
    }
}

TEST(BpeTrainer, ChatTemplateIsTheOneCheckedAgainstHuggingFaceJinja) {
    // chat_template_test.cpp renders forge-bpe.jinja against @huggingface/jinja's goldens.
    EXPECT_EQ(read_file(test::data_path("../chat_templates/forge-bpe.jinja")), trained_chat_template());
}

TEST(BpeTrainer, ChatTemplateRendersNanochatTurns) {
    const std::vector<ChatMessage> messages{{"system", "Be brief.", ""}, {"user", "Hi", ""}, {"assistant", "Hello!", ""},
                                            {"user", "2+2?", ""}};
    EXPECT_EQ(render_chat(trained_chat_template(), messages, {}),
              "<|user_start|>Be brief.\n\nHi<|user_end|><|assistant_start|>Hello!<|assistant_end|>"
              "<|user_start|>2+2?<|user_end|><|assistant_start|>");
}

TEST(BpeTrainer, MatchesLlamaCppIds) {
    for (const std::string pre : {"llama-bpe", "qwen2"}) {
        const Tokenizer tokenizer(train({training_text()}, kGoldenVocabSize, pre).vocab());
        EXPECT_GT(test::expect_matches_llama_cpp(tokenizer, "trained_bpe_ids.json", pre), 50) << pre;
    }
}

}  // namespace
}  // namespace forge::llm
