// Supervised fine-tuning (models/gpt/sft.h, conversations.h) on a tiny model: the loss mask
// covers exactly the assistant's tokens, a short run lowers the held-out loss, an interrupted
// run resumes bit-exactly, and bad conversation lines are errors naming the line.
#include "core/error.h"
#include "models/gpt/conversations.h"
#include "models/gpt/sft.h"
#include "models/gpt/trainer.h"
#include "models/llm/tokenizer/bpe_trainer.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "models/llm/tokenizer/word_counts.h"
#include "test/models/gpt/tiny_run.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

namespace forge::gpt {
namespace {

using testing::file_bytes;
using testing::log_losses;
using testing::scratch_dir;
using testing::tiny_config;

std::string corpus_text() { return file_bytes(std::filesystem::path(FORGE_TEST_DATA_DIR) / "gpt" / "corpus.txt"); }

// A 400-token BPE with forge's chat tokens and template, trained on the test corpus.
llm::TrainedTokenizer tiny_tokenizer() {
    llm::WordCounts words("qwen2");
    words.add(corpus_text());
    words.add("What is 12 + 34? 12 + 34 = 46. Hello! I am forge's default model.");
    return llm::train_bpe_tokenizer(words, 400, {});
}

void write_lines(const std::filesystem::path& path, const std::vector<std::string>& lines) {
    std::ofstream out(path);
    for (const auto& l : lines) out << l << "\n";
}

std::string qa_line(const std::string& q, const std::string& a) {
    return R"({"messages":[{"role":"user","content":")" + q + R"("},{"role":"assistant","content":")" + a + R"("}]})";
}

// Additions with their answers: something a tiny model can learn in a few steps.
std::vector<std::string> addition_lines(int first, int count) {
    std::vector<std::string> lines;
    for (int i = first; i < first + count; ++i) {
        const int a = 10 + i % 7, b = 20 + i % 5;
        lines.push_back(qa_line("What is " + std::to_string(a) + " + " + std::to_string(b) + "?",
                                std::to_string(a) + " + " + std::to_string(b) + " = " + std::to_string(a + b) + "."));
    }
    return lines;
}

// A pretrained depth-1 base model (12 steps of the shared tiny run) with the tiny tokenizer.
std::filesystem::path tiny_base(const std::string& name) {
    const auto dir = scratch_dir(name);
    std::filesystem::create_directories(dir);
    tiny_tokenizer().to_gguf().write((dir / "tok.gguf").string());
    TrainConfig c = tiny_config(dir / "base");
    c.tokenizer = dir / "tok.gguf";
    train_gpt(c, {});
    return dir;
}

SftConfig tiny_sft(const std::filesystem::path& dir, const std::string& out) {
    write_lines(dir / "train.jsonl", addition_lines(0, 48));
    write_lines(dir / "val.jsonl", addition_lines(100, 8));
    SftConfig s;
    s.model = dir / "base";
    s.data = dir / "train.jsonl";
    s.val_data = dir / "val.jsonl";
    s.epochs = 1;
    s.train.out_dir = dir / out;
    s.train.batch = 2;
    s.train.seq_len = 32;
    s.train.eval_every = 4;
    s.train.checkpoint_every = 3;
    s.train.sample_tokens = 8;
    s.train.optimizer.matrix_lr = 2.0f;  // as tiny_config: a batch of 64 tokens scales every rate by 1/90
    s.train.optimizer.embedding_lr = 20.0f;
    s.train.optimizer.unembedding_lr = 0.4f;
    return s;
}

TEST(Sft, MaskCoversExactlyTheAssistantTokens) {
    const llm::TrainedTokenizer trained = tiny_tokenizer();
    const llm::Tokenizer tokenizer(trained.vocab());
    Conversation c;
    c.source = "test:1";
    c.messages = {{"system", "Be brief.", {}}, {"user", "What is 12 + 34?", {}}, {"assistant", "12 + 34 = 46.", {}},
                  {"user", "Hello!", {}}, {"assistant", "Hello! I am forge's default model.", {}}};
    const TokenizedConversation t = tokenize_conversation(c, llm::trained_chat_template(), tokenizer);

    // The ids are those `forge chat` gives the whole rendered text.
    llm::ChatOptions options;
    options.add_generation_prompt = false;
    const std::string text = llm::render_chat(llm::trained_chat_template(), c.messages, options);
    EXPECT_EQ(t.tokens, tokenizer.encode(text, true, true));

    // Independently: trained = the tokens after each <|assistant_start|>, through <|assistant_end|>.
    const std::int32_t start = trained.special_id(3), end = trained.special_id(4);
    std::vector<std::uint8_t> expected;
    bool in_reply = false;
    for (const std::int32_t id : t.tokens) {
        expected.push_back(in_reply ? 1 : 0);
        if (id == start) in_reply = true;
        if (id == end) in_reply = false;
    }
    EXPECT_EQ(t.trained, expected);
    EXPECT_EQ(tokenizer.decode(std::vector<std::int32_t>(t.tokens.begin() + t.prompt_tokens, t.tokens.end()), true)
                  .substr(0, 13),
              "12 + 34 = 46.");
    EXPECT_EQ(t.tokens[static_cast<std::size_t>(t.prompt_tokens) - 1], start);

    // Packed rows: targets are the next token exactly where it is trained, kNoTarget elsewhere.
    const PackedRows rows = pack_conversations(std::span(&t, 1), std::vector<std::string>{"test:1"},
                                               static_cast<std::int64_t>(t.tokens.size()) + 3, 0);
    ASSERT_EQ(rows.rows(), 1);
    const std::int32_t* target = rows.targets.data<std::int32_t>();
    for (std::size_t i = 0; i + 1 < t.tokens.size(); ++i) {
        EXPECT_EQ(target[i], t.trained[i + 1] ? t.tokens[i + 1] : kNoTarget) << "position " << i;
    }
    for (std::size_t i = t.tokens.size() - 1; i < t.tokens.size() + 3; ++i) EXPECT_EQ(target[i], kNoTarget);
}

TEST(Sft, ShortRunLowersTheHeldOutLoss) {
    const auto dir = tiny_base("sft_learns");
    SftConfig before = tiny_sft(dir, "before");
    before.eval_only = true;
    const double loss_before = train_sft(before, {}).val_loss;

    const TrainResult r = train_sft(tiny_sft(dir, "sft"), {});
    EXPECT_GT(r.steps, 7);
    EXPECT_LT(r.val_loss, 0.5 * loss_before) << "before " << loss_before << ", after " << r.val_loss;
    const auto losses = log_losses(dir / "sft");
    EXPECT_LT(losses.back(), 0.5 * losses.front());
    EXPECT_TRUE(std::filesystem::exists(dir / "sft" / "model.gguf"));
}

TEST(Sft, ResumeAfterAnInterruptionIsBitExact) {
    const auto dir = tiny_base("sft_resume");
    SftConfig full = tiny_sft(dir, "full");
    train_sft(full, {});

    SftConfig interrupted = tiny_sft(dir, "interrupted");
    struct Stop {};
    EXPECT_THROW(train_sft(interrupted, [](const StepReport& r) {
                     if (r.step == 7) throw Stop{};  // after the checkpoint of step 6
                 }),
                 Stop);
    interrupted.train.resume = true;
    train_sft(interrupted, {});
    EXPECT_EQ(log_losses(interrupted.train.out_dir), log_losses(full.train.out_dir));
    EXPECT_EQ(file_bytes(interrupted.train.out_dir / "model.gguf"), file_bytes(full.train.out_dir / "model.gguf"));
}

// Pretraining and SFT share the loop: a checkpoint taken before the warmdown of a longer run
// continues as that longer run, bit for bit; one taken inside the warmdown is refused.
TEST(Sft, ResumeWithADifferentStepCountBeforeTheWarmdown) {
    TrainConfig longer = tiny_config(scratch_dir("steps_longer"));
    longer.steps = 16;
    train_gpt(longer, {});

    TrainConfig shorter = tiny_config(scratch_dir("steps_shorter"));  // 12 steps: warmdown from step 11
    struct Stop {};
    EXPECT_THROW(train_gpt(shorter, [](const StepReport& r) {
                     if (r.step == 7) throw Stop{};  // after the checkpoint of step 6
                 }),
                 Stop);
    shorter.resume = true;
    shorter.steps = 16;
    train_gpt(shorter, {});
    EXPECT_EQ(log_losses(shorter.out_dir), log_losses(longer.out_dir));
    EXPECT_EQ(file_bytes(shorter.out_dir / "model.gguf"), file_bytes(longer.out_dir / "model.gguf"));

    TrainConfig finished = tiny_config(scratch_dir("steps_finished"));
    train_gpt(finished, {});
    finished.resume = true;
    finished.steps = 16;
    try {
        train_gpt(finished, {});
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("use --steps 12"), std::string::npos) << e.what();
    }
}

std::string error_of(const std::vector<std::string>& lines) {
    const auto dir = scratch_dir("sft_bad");
    std::filesystem::create_directories(dir);
    write_lines(dir / "bad.jsonl", lines);
    try {
        read_conversations(dir / "bad.jsonl");
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(Sft, BadLinesAreErrorsNamingTheLine) {
    const std::string good = qa_line("Hi", "Hello.");
    EXPECT_NE(error_of({good, "", "{not json"}).find("bad.jsonl:3: malformed JSON"), std::string::npos);
    EXPECT_NE(error_of({good, R"({"text": "hi"})"}).find("bad.jsonl:2: expected {\"messages\""), std::string::npos);
    EXPECT_NE(error_of({R"({"messages":[{"role":"user","content":5}]})"}).find("bad.jsonl:1: messages[0].content"),
              std::string::npos);
    EXPECT_NE(error_of({good, good, R"({"messages":[{"role":"user","content":"hi"}]})"})
                  .find("bad.jsonl:3: no assistant message"),
              std::string::npos);
    EXPECT_NE(error_of({}).find("no conversations"), std::string::npos);

    // A role the template refuses names the line too.
    const llm::Tokenizer tokenizer(tiny_tokenizer().vocab());
    Conversation c;
    c.source = "chat.jsonl:9";
    c.messages = {{"robot", "beep", {}}, {"assistant", "boop", {}}};
    try {
        tokenize_conversation(c, llm::trained_chat_template(), tokenizer);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("chat.jsonl:9: the chat template"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace forge::gpt
