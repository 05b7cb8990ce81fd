// Hostile training files: the JSON lines of `train sft`, a run's log.jsonl and the metadata
// of a `train gpt` checkpoint go through the depth-bounded parser (core/json.h), so a line
// nested 100 000 deep, a number out of range or a field of the wrong type is an error that
// names the file (and line), or a log line dropped — never a crash, a raw library message or
// a loop as long as a number in the file.
#include "core/checkpoint/safetensors.h"
#include "core/checkpoint/step_log.h"
#include "core/error.h"
#include "models/gpt/conversations.h"
#include "test/models/gpt/tiny_run.h"
#include "test/robustness/hostile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace forge::test {
namespace {

using ::testing::HasSubstr;

std::string nested(int depth) { return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']'); }

std::string lines_of(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& line : lines) out += line + "\n";
    return out;
}

// The error `work` throws, after checking it was a forge::Error and came quickly (each case
// here takes milliseconds; the bound is far above that and far below a runaway loop).
std::string error_of(const std::function<void()>& work) {
    const auto start = std::chrono::steady_clock::now();
    std::string message = "no error";
    try {
        work();
    } catch (const Error& e) {
        message = e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), kMaxSeconds);
    return message;
}

const std::string kGoodConversation = R"({"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello."}]})";

TEST(TrainingFilesHostile, ConversationLinesAreBoundedAndNamed) {
    const auto read = [](const std::string& name, const std::string& bad_line) {
        const fs::path path = write_file(name, lines_of({kGoodConversation, bad_line}));
        return error_of([&] { gpt::read_conversations(path); });
    };
    EXPECT_THAT(read("deep.jsonl", nested(100'000)), HasSubstr("deep.jsonl:2: JSON nested more than 256 levels deep"));
    EXPECT_THAT(read("deep_content.jsonl", R"({"messages":[{"role":"user","content":)" + nested(100'000) + "}]}"),
                HasSubstr("deep_content.jsonl:2: JSON nested more than"));
    EXPECT_THAT(read("range.jsonl", R"({"messages": 1e400})"), HasSubstr("range.jsonl:2: malformed JSON"));
    EXPECT_THAT(read("utf8.jsonl", "{\"messages\": \"\xff\"}"), HasSubstr("utf8.jsonl:2: malformed JSON"));
}

TEST(TrainingFilesHostile, StepLogKeepsOnlyItsOwnEarlierLines) {
    const fs::path path = write_file("log.jsonl", lines_of({R"({"step":1,"loss":2.5})", nested(100'000), R"({"step":"2"})",
                                                            R"({"step":1e400})", R"([{"step":2}])", R"({"step":2,"loss":2.0})",
                                                            R"({"step":3,"loss":1.5})", R"({"step":4,"lo)"}));
    EXPECT_EQ(error_of([&] { checkpoint::truncate_step_log(path, 2); }), "no error");
    std::ifstream in(path);
    std::stringstream kept;
    kept << in.rdbuf();
    EXPECT_EQ(kept.str(), lines_of({R"({"step":1,"loss":2.5})", R"({"step":2,"loss":2.0})"}));
}

// A finished tiny run's checkpoint with one metadata entry replaced, resumed.
class DamagedGptCheckpoint : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        config_ = gpt::testing::tiny_config(gpt::testing::scratch_dir("robustness_checkpoint"));
        config_.steps = 2;
        config_.checkpoint_every = 1;
        config_.eval_every = 2;
        gpt::train_gpt(config_, {});
        checkpoint::Metadata metadata;
        tensors_ = checkpoint::read_safetensors(path(), &metadata);
        metadata_ = metadata;
    }
    static fs::path path() { return config_.out_dir / "checkpoint.safetensors"; }

    std::string resume_with(const std::string& key, const std::string& value) {
        checkpoint::Metadata changed = metadata_;
        changed[key] = value;
        checkpoint::write_safetensors(path(), tensors_, changed);
        gpt::TrainConfig again = config_;
        again.resume = true;
        return error_of([&] { gpt::train_gpt(again, {}); });
    }

    static inline gpt::TrainConfig config_;
    static inline checkpoint::TensorMap tensors_;
    static inline checkpoint::Metadata metadata_;
};

TEST_F(DamagedGptCheckpoint, StepsThatAreNotCountsAreNamed) {
    EXPECT_THAT(resume_with("step", "abc"), HasSubstr("checkpoint.safetensors: metadata 'step' is not a count: \"abc\""));
    EXPECT_THAT(resume_with("optimizer_step", "-1"), HasSubstr("metadata 'optimizer_step' is not a count"));
    EXPECT_THAT(resume_with("step", "99999999999999999999"), HasSubstr("metadata 'step' is not a count"));
    // A count past the run's end would have bounded a loop over every step before it.
    EXPECT_THAT(resume_with("step", "4000000000000000000"), HasSubstr("is damaged: written after step 4000000000000000000"));
}

TEST_F(DamagedGptCheckpoint, SettingsAreParsedWithTheDepthBound) {
    EXPECT_THAT(resume_with("settings", nested(100'000)), HasSubstr("metadata 'settings': JSON nested more than 256"));
    EXPECT_THAT(resume_with("settings", "{\"steps\": 1e400}"), HasSubstr("metadata 'settings': malformed JSON"));
    EXPECT_THAT(resume_with("settings", "[1]"), HasSubstr("expected an object with a positive integer \"steps\""));
    std::string settings = metadata_.at("settings");
    settings.replace(settings.find("\"steps\":2"), 9, "\"steps\":\"2\"");
    EXPECT_THAT(resume_with("settings", settings), HasSubstr("expected an object with a positive integer \"steps\""));
}

}  // namespace
}  // namespace forge::test
