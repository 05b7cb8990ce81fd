// Tokenizers vs llama.cpp: every text of test/data/llm_text/corpus.json, encoded with and
// without special-token parsing, must give exactly the ids llama.cpp gave for the same GGUF
// (expected_ids.json, made by tools/llm_text/tokenize_oracle.mjs).
#include "core/gguf/gguf_writer.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "test/models/llm_text/fixture.h"
#include "test/models/llm_text/llama_cpp_ids.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace forge::llm {
namespace {

using test::OwnedGguf;

// The same vocabulary with another tokenizer.ggml.pre: the pre-tokenizers gpt-2 and
// llama-bpe are checked on the Qwen3 vocabulary (any byte-level BPE vocabulary works).
OwnedGguf with_pre(const OwnedGguf& base, const std::string& pre) {
    auto writer = gguf::GgufWriter::copy_of(base.file);
    writer.set("tokenizer.ggml.pre", gguf::Value(pre));
    OwnedGguf out{writer.to_bytes(), {}};
    out.file = gguf::GgufFile::parse(out.bytes, "qwen3-" + pre);
    return out;
}

const OwnedGguf& qwen3() {
    static const OwnedGguf gguf = test::load_gguf_gz("qwen3-tokenizer.gguf.gz");
    return gguf;
}

void expect_matches_llama_cpp(const Tokenizer& tokenizer, const std::string& golden_name) {
    EXPECT_GT(test::expect_matches_llama_cpp(tokenizer, "expected_ids.json", golden_name), 40);
}

TEST(Tokenizer, Qwen2PreTokenizerMatchesLlamaCppOnQwen3Vocab) {
    expect_matches_llama_cpp(Tokenizer::from_gguf(qwen3().file), "qwen3");
}

TEST(Tokenizer, Gpt2PreTokenizerMatchesLlamaCpp) {
    const auto gguf = with_pre(qwen3(), "gpt-2");
    expect_matches_llama_cpp(Tokenizer::from_gguf(gguf.file), "qwen3-gpt2");
}

TEST(Tokenizer, LlamaBpePreTokenizerMatchesLlamaCpp) {
    const auto gguf = with_pre(qwen3(), "llama-bpe");
    expect_matches_llama_cpp(Tokenizer::from_gguf(gguf.file), "qwen3-llama-bpe");
}

TEST(Tokenizer, SentencePieceMatchesLlamaCpp) {
    const auto gguf = test::load_gguf_gz("llama2-spm-tokenizer.gguf.gz");
    expect_matches_llama_cpp(Tokenizer::from_gguf(gguf.file), "llama2-spm");
}

// The oracle kit's tiny byte-level BPE (511 tokens, qwen2 pre-tokenizer; a random-weight
// model from make_gguf.py --tokenizer tiny): most words end as many short pieces.
TEST(Tokenizer, TinyBpeVocabMatchesLlamaCpp) {
    const auto file = gguf::GgufFile::open(test::data_path("tiny-bpe.gguf"));
    expect_matches_llama_cpp(Tokenizer::from_gguf(file), "tiny-bpe");
}

// gpt-oss (o200k_harmony, pre-tokenizer gpt-4o) and Gemma 3 (SentencePiece, 262,144 pieces, no
// space prefix) on corpus.json plus casing, mark and harmony texts
// (corpus_o200k_gemma3.json). The fixtures are the real vocabularies cut to what these texts
// need, same ids (tools/llm_text/make_tokenizer_gguf.py --keep-ids; llama.cpp gives the same
// ids on the cut and the whole files).
const OwnedGguf& gpt_oss() {
    static const OwnedGguf gguf = test::load_gguf_gz("gpt-oss-tokenizer.gguf.gz");
    return gguf;
}

TEST(Tokenizer, GptOssO200kMatchesLlamaCpp) {
    EXPECT_GT(test::expect_matches_llama_cpp(Tokenizer::from_gguf(gpt_oss().file), "expected_ids_o200k_gemma3.json",
                                             "gpt-oss"),
              60);
}

TEST(Tokenizer, Gemma3SentencePieceMatchesLlamaCpp) {
    const auto gguf = test::load_gguf_gz("gemma3-tokenizer.gguf.gz");
    EXPECT_GT(test::expect_matches_llama_cpp(Tokenizer::from_gguf(gguf.file), "expected_ids_o200k_gemma3.json",
                                             "gemma3"),
              60);
}

// llama.cpp's detokenizer on the same ids (expected_text_o200k_gemma3.json, made by
// tools/llm_text/detokenize_oracle.mjs), with and without special tokens printed: gpt-oss's
// framing tokens print either way, <|return|> and Gemma's turn tokens only when asked.
void expect_decodes_like_llama_cpp(const Tokenizer& tokenizer, const std::string& name) {
    const auto goldens = test::read_json(test::data_path("expected_text_o200k_gemma3.json"));
    int checked = 0;
    for (const auto& g : goldens.at(name)) {
        const auto ids = g["ids"].get<std::vector<std::int32_t>>();
        EXPECT_EQ(tokenizer.decode(ids), g["text"].get<std::string>()) << name << " " << g["ids"].dump();
        EXPECT_EQ(tokenizer.decode(ids, true), g["text_special"].get<std::string>()) << name << " " << g["ids"].dump();
        ++checked;
    }
    EXPECT_GT(checked, 60);
}

TEST(Tokenizer, GptOssAndGemma3DecodeLikeLlamaCpp) {
    expect_decodes_like_llama_cpp(Tokenizer::from_gguf(gpt_oss().file), "gpt-oss");
    const auto gemma = test::load_gguf_gz("gemma3-tokenizer.gguf.gz");
    expect_decodes_like_llama_cpp(Tokenizer::from_gguf(gemma.file), "gemma3");
}

// Gemma 3: no space prefix (text round-trips exactly, leading spaces and runs of them too, via
// its user-defined whitespace tokens), <bos> added, and <end_of_turn> ends a reply.
TEST(Tokenizer, Gemma3SpacesBosAndEndOfTurn) {
    const auto gguf = test::load_gguf_gz("gemma3-tokenizer.gguf.gz");
    const auto tokenizer = Tokenizer::from_gguf(gguf.file);
    for (const std::string text : {"Hello world", " Hello world", "  leading two spaces", "trailing spaces   ",
                                   "\n\nleading newlines", "tabs\tand\t\ttabs\t"}) {
        EXPECT_EQ(tokenizer.decode(tokenizer.encode(text, false, false)), text);
    }
    const auto ids = tokenizer.encode("Hello world", true, false);
    EXPECT_EQ(ids.front(), *tokenizer.vocab().find("<bos>"));
    EXPECT_TRUE(tokenizer.is_end_of_generation(*tokenizer.vocab().find("<end_of_turn>")));
    EXPECT_FALSE(tokenizer.is_end_of_generation(*tokenizer.vocab().find("<start_of_turn>")));
}

// llama.cpp's harmony exceptions: <|return|> and <|call|> end a reply, <|end|> (between the
// analysis and the final message) does not; the framing tokens print even without `special`.
TEST(Tokenizer, GptOssHarmonyTokens) {
    const auto tokenizer = Tokenizer::from_gguf(gpt_oss().file);
    const auto id = [&](std::string_view text) { return *tokenizer.vocab().find(text); };
    EXPECT_TRUE(tokenizer.is_end_of_generation(id("<|return|>")));
    EXPECT_TRUE(tokenizer.is_end_of_generation(id("<|call|>")));
    EXPECT_FALSE(tokenizer.is_end_of_generation(id("<|end|>")));
    EXPECT_FALSE(tokenizer.is_end_of_generation(id("<|channel|>")));
    const std::string reply = "<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|channel|>final<|message|>Hi";
    const auto ids = tokenizer.encode(reply, false, false);
    EXPECT_EQ(tokenizer.decode(ids), reply);
    const auto done = tokenizer.encode("Hi<|return|>", false, true);
    EXPECT_EQ(tokenizer.decode(done), "Hi");
    EXPECT_EQ(tokenizer.decode(done, true), "Hi<|return|>");
}

// smaug-bpe: Llama 3's pattern without Llama 3's whole-word lookup (on the Qwen3 vocabulary).
TEST(Tokenizer, SmaugBpePreTokenizerMatchesLlamaCpp) {
    const auto gguf = with_pre(qwen3(), "smaug-bpe");
    EXPECT_GT(test::expect_matches_llama_cpp(Tokenizer::from_gguf(gguf.file), "expected_ids_smaug_bpe.json",
                                             "qwen3-smaug-bpe"),
              60);
}

// The real Llama 3 vocabulary (2.1 MB compressed) is not committed; point
// FORGE_LLAMA3_TOKENIZER_GGUF at the file tools/llm_text/make_tokenizer_gguf.py writes.
TEST(Tokenizer, Llama3VocabMatchesLlamaCppWhenAvailable) {
    const char* path = std::getenv("FORGE_LLAMA3_TOKENIZER_GGUF");
    if (path == nullptr || !std::ifstream(path).good()) GTEST_SKIP() << "FORGE_LLAMA3_TOKENIZER_GGUF not set";
    const auto file = gguf::GgufFile::open(path);
    expect_matches_llama_cpp(Tokenizer::from_gguf(file), "llama3");
}

TEST(Tokenizer, AddSpecialFollowsMetadata) {
    const auto qwen = Tokenizer::from_gguf(qwen3().file);  // add_bos_token = false
    EXPECT_EQ(qwen.encode("Hello", true, false), qwen.encode("Hello", false, false));
    const auto spm_gguf = test::load_gguf_gz("llama2-spm-tokenizer.gguf.gz");
    const auto spm = Tokenizer::from_gguf(spm_gguf.file);  // add_bos_token = true
    const auto ids = spm.encode("Hello", true, false);
    ASSERT_FALSE(ids.empty());
    EXPECT_EQ(ids.front(), spm.bos_id());
    EXPECT_EQ(spm.encode("", true, false), std::vector<std::int32_t>{spm.bos_id()});
}

TEST(Tokenizer, DecodeRoundTripsText) {
    const auto qwen = Tokenizer::from_gguf(qwen3().file);
    const auto spm_gguf = test::load_gguf_gz("llama2-spm-tokenizer.gguf.gz");
    const auto spm = Tokenizer::from_gguf(spm_gguf.file);
    for (const std::string text : {"Hello, world!", "你好，世界 👨‍👩‍👧‍👦", "tabs\tand\nnewlines  "}) {
        EXPECT_EQ(qwen.decode(qwen.encode(text, false, false)), text);
        // SentencePiece adds the leading "▁" of the first word.
        EXPECT_EQ(spm.decode(spm.encode(text, false, false)), " " + text);
    }
    const auto ids = qwen.encode("<|im_start|>user", false, true);
    EXPECT_EQ(qwen.decode(ids), "user");  // control tokens print only when asked
    EXPECT_EQ(qwen.decode(ids, true), "<|im_start|>user");
}

TEST(Tokenizer, WorksAfterAMove) {
    auto original = Tokenizer::from_gguf(qwen3().file);
    const auto expected = original.encode("Hello, world!", false, false);
    const Tokenizer moved = std::move(original);
    EXPECT_EQ(moved.encode("Hello, world!", false, false), expected);
}

TEST(Tokenizer, EndOfGeneration) {
    const auto qwen = Tokenizer::from_gguf(qwen3().file);
    const auto im_end = qwen.vocab().find("<|im_end|>");
    ASSERT_TRUE(im_end.has_value());
    EXPECT_TRUE(qwen.is_end_of_generation(*im_end));
    EXPECT_FALSE(qwen.is_end_of_generation(qwen.encode("Hi", false, false).front()));
}

TEST(Tokenizer, RejectsUnknownModelAndOutOfRangeIds) {
    gguf::GgufWriter writer;
    writer.set("tokenizer.ggml.model", gguf::Value("wordpiece"));
    const auto bytes = writer.to_bytes();
    const auto file = gguf::GgufFile::parse(bytes, "bad.gguf");
    EXPECT_THROW(Tokenizer::from_gguf(file), FormatError);
    const auto qwen = Tokenizer::from_gguf(qwen3().file);
    EXPECT_THROW(qwen.token_to_piece(qwen.n_vocab()), Error);
    EXPECT_THROW(qwen.token_to_piece(-1), Error);
}

}  // namespace
}  // namespace forge::llm
