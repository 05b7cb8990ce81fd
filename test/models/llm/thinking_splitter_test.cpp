// The thinking splitter: the same thinking and content whatever the pieces are (every split
// point of the text is tried, then byte by byte), tags never on either side.
#include "models/llm/thinking_splitter.h"

#include <gtest/gtest.h>

#include <vector>

namespace forge::llm {
namespace {

SplitText split(const std::vector<std::string>& pieces) {
    ThinkingSplitter splitter;
    SplitText all;
    const auto take = [&](const SplitText& out) {
        all.thinking += out.thinking;
        all.content += out.content;
    };
    for (const std::string& p : pieces) take(splitter.push(p));
    take(splitter.finish());
    return all;
}

// Whole, split at every byte, and byte by byte: all must give `thinking` and `content`.
void expect_split(const std::string& text, const std::string& thinking, const std::string& content) {
    std::vector<std::vector<std::string>> ways = {{text}};
    for (std::size_t at = 1; at < text.size(); ++at) ways.push_back({text.substr(0, at), text.substr(at)});
    std::vector<std::string> bytes;
    for (const char c : text) bytes.emplace_back(1, c);
    ways.push_back(bytes);
    for (const auto& pieces : ways) {
        const SplitText out = split(pieces);
        EXPECT_EQ(out.thinking, thinking) << text << " in " << pieces.size() << " pieces";
        EXPECT_EQ(out.content, content) << text << " in " << pieces.size() << " pieces";
    }
}

TEST(ThinkingSplitter, ThinkingThenContent) {
    expect_split("<think>\nLet me see.\n</think>\n\nHello!", "Let me see.\n", "Hello!");
    expect_split("  <think>a < b </thin</think>x", "a < b </thin", "x");
}

TEST(ThinkingSplitter, NoThinkingIsAllContent) {
    expect_split("Hello <think> there", "", "Hello <think> there");
    expect_split("\n<thinker>", "", "\n<thinker>");
    expect_split("<thi", "", "<thi");  // ended before the tag was whole: it was content
    expect_split("", "", "");
}

TEST(ThinkingSplitter, EmptyOrUnclosedThinking) {
    expect_split("<think>\n\n</think>\n\nAnswer", "", "Answer");
    expect_split("<think>cut short by max_tokens", "cut short by max_tokens", "");
    expect_split("<think>ends in a partial </thi", "ends in a partial </thi", "");
}

TEST(ThinkingSplitter, HoldsBackOnlyWhatMayBeATag) {
    ThinkingSplitter splitter;
    EXPECT_EQ(splitter.push("<think>abc</").thinking, "abc");
    const SplitText out = splitter.push("think>def");
    EXPECT_EQ(out.thinking, "");
    EXPECT_EQ(out.content, "def");
}

}  // namespace
}  // namespace forge::llm
