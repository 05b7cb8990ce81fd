// The incremental tool-call parser: the same calls and content whatever the pieces are (every
// split point of the text is tried), call text never in content, deltas that concatenate to
// the whole arguments, both formats.
#include "models/llm/tool_calls/tool_call_parser.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace forge::llm::tool_calls {
namespace {

struct Collected {
    std::string content;
    std::vector<ChatToolCall> calls;  // rebuilt from the deltas
};

Collected collect(ToolCallParser& parser, const std::vector<std::string>& pieces) {
    Collected c;
    auto take = [&](const ParsedOutput& out) {
        c.content += out.content;
        for (const ToolCallDelta& d : out.tool_calls) {
            if (d.index == static_cast<int>(c.calls.size())) {
                EXPECT_FALSE(d.id.empty());
                EXPECT_FALSE(d.name.empty());
                c.calls.push_back({d.id, d.name, ""});
            }
            ASSERT_LT(d.index, static_cast<int>(c.calls.size()));
            c.calls[d.index].arguments += d.arguments;
        }
    };
    for (const std::string& p : pieces) take(parser.push(p));
    take(parser.finish());
    return c;
}

// Parses `text` whole, then split at every byte, then byte by byte; all must agree.
Collected parse_every_way(ToolFormat format, const std::string& text) {
    ToolCallParser whole(format);
    const Collected reference = collect(whole, {text});
    EXPECT_EQ(reference.calls.size(), whole.calls().size());
    for (std::size_t i = 0; i < reference.calls.size(); ++i) {
        EXPECT_EQ(reference.calls[i].name, whole.calls()[i].name);
        EXPECT_EQ(reference.calls[i].arguments, whole.calls()[i].arguments);
    }
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
        ToolCallParser split(format);
        const Collected c = collect(split, {text.substr(0, cut), text.substr(cut)});
        EXPECT_EQ(c.content, reference.content) << "cut at " << cut;
        EXPECT_EQ(c.calls.size(), reference.calls.size()) << "cut at " << cut;
        for (std::size_t i = 0; i < std::min(c.calls.size(), reference.calls.size()); ++i) EXPECT_EQ(c.calls[i].arguments, reference.calls[i].arguments) << cut;
    }
    std::vector<std::string> bytes;
    for (char ch : text) bytes.emplace_back(1, ch);
    ToolCallParser bytewise(format);
    const Collected b = collect(bytewise, bytes);
    EXPECT_EQ(b.content, reference.content);
    EXPECT_EQ(b.calls.size(), reference.calls.size());
    return reference;
}

TEST(ToolCallParser, HermesCallsAfterContent) {
    const Collected c = parse_every_way(ToolFormat::Hermes,
        "I'll look both up.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"note\": \"a } in \\\"text\\\"\"}}\n</tool_call>\n"
        "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Asia/Tokyo\"}}\n</tool_call>");
    EXPECT_EQ(c.content, "I'll look both up.\n");  // the line end between the calls is layout, not content
    ASSERT_EQ(c.calls.size(), 2u);
    EXPECT_EQ(c.calls[0].name, "get_weather");
    EXPECT_EQ(c.calls[0].id, "call_0");
    EXPECT_EQ(nlohmann::json::parse(c.calls[0].arguments), nlohmann::json::parse(R"({"city": "Paris", "note": "a } in \"text\""})"));
    EXPECT_EQ(c.calls[1].name, "get_time");
    EXPECT_EQ(c.calls[1].arguments, R"({"zone": "Asia/Tokyo"})");
}

TEST(ToolCallParser, PlainTextWithAngleBracketsIsContent) {
    const Collected c = parse_every_way(ToolFormat::Hermes, "a < b and <tool> is not <tool_call but text");
    EXPECT_EQ(c.content, "a < b and <tool> is not <tool_call but text");
    EXPECT_TRUE(c.calls.empty());
}

TEST(ToolCallParser, ArgumentsStreamBeforeTheCallEnds) {
    ToolCallParser parser(ToolFormat::Hermes, "id");
    EXPECT_EQ(parser.push("Sure. <tool_").content, "Sure. ");
    auto out = parser.push("call>\n{\"name\": \"f\", \"arguments\": {\"x\": ");
    EXPECT_TRUE(out.content.empty());
    ASSERT_EQ(out.tool_calls.size(), 1u);
    EXPECT_EQ(out.tool_calls[0].id, "id0");
    EXPECT_EQ(out.tool_calls[0].name, "f");
    EXPECT_EQ(out.tool_calls[0].arguments, "{\"x\": ");
    out = parser.push("[1, 2]}}\n</tool_call>");
    ASSERT_EQ(out.tool_calls.size(), 1u);
    EXPECT_TRUE(out.tool_calls[0].name.empty());
    EXPECT_EQ(out.tool_calls[0].arguments, "[1, 2]}");
    EXPECT_TRUE(parser.finish().empty());
    ASSERT_EQ(parser.calls().size(), 1u);
    EXPECT_EQ(parser.calls()[0].arguments, "{\"x\": [1, 2]}");
}

TEST(ToolCallParser, UnclosedCallAtTheEndIsStillACall) {
    const Collected c = parse_every_way(ToolFormat::Hermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}");
    ASSERT_EQ(c.calls.size(), 1u);
    EXPECT_EQ(c.calls[0].arguments, "{}");
    EXPECT_EQ(c.content, "");
}

TEST(ToolCallParser, MalformedCallIsGivenBackAsContent) {
    const Collected c = parse_every_way(ToolFormat::Hermes, "x<tool_call>not json</tool_call>y");
    EXPECT_TRUE(c.calls.empty());
    EXPECT_EQ(c.content, "xnot jsony");  // the inner text, never the markup
}

TEST(ToolCallParser, LineEndsBetweenParallelCallsAreNotContent) {
    const std::string call = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>";
    const Collected c = parse_every_way(ToolFormat::Hermes, call + "\n" + call + "\n\n");
    EXPECT_EQ(c.content, "");
    EXPECT_EQ(c.calls.size(), 2u);
    // Text after the calls keeps its own layout.
    EXPECT_EQ(parse_every_way(ToolFormat::Hermes, call + "\nDone.").content, "\nDone.");
}

TEST(ToolCallParser, StrayClosingTagsAreNotContent) {
    EXPECT_EQ(parse_every_way(ToolFormat::Hermes, "a</tool_call>b").content, "ab");
    const Collected c = parse_every_way(ToolFormat::Hermes, "<tool_call>{\"name\": \"f\"}</tool_call></tool_call>");
    EXPECT_EQ(c.content, "");
    EXPECT_EQ(c.calls.size(), 1u);
}

// Cut by max_tokens inside the arguments: the broken JSON is not presented as a call (OpenAI
// returns the truncated arguments, which clients then fail to parse); serve's finish_reason
// "length" says the answer was cut. A stream has already sent the call's deltas.
TEST(ToolCallParser, ACallCutShortIsNotACall) {
    for (const std::string& text : {std::string("Sure.<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, 2"),
                                    std::string("Sure.<tool_call>\n{\"na")}) {
        for (std::size_t cut = 0; cut <= text.size(); ++cut) {
            ToolCallParser parser(ToolFormat::Hermes);
            const Collected c = collect(parser, {text.substr(0, cut), text.substr(cut)});
            EXPECT_EQ(c.content, "Sure.") << text << " cut at " << cut;
            EXPECT_TRUE(parser.calls().empty());
            EXPECT_TRUE(parser.cut_call());
        }
    }
    ToolCallParser streamed(ToolFormat::Hermes);
    const Collected deltas = collect(streamed, {"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\""});
    ASSERT_EQ(deltas.calls.size(), 1u);  // the deltas sent before the cut
    EXPECT_EQ(deltas.calls[0].name, "f");
    ToolCallParser llama(ToolFormat::Llama3Json);
    const Collected cut_llama = collect(llama, {"{\"name\": \"f\", \"parameters\": {\"a\""});
    EXPECT_EQ(cut_llama.content, "");
    EXPECT_TRUE(llama.calls().empty());
    EXPECT_TRUE(llama.cut_call());
    // A Llama answer that is JSON but names no function stays content, cut or not.
    ToolCallParser answer(ToolFormat::Llama3Json);
    EXPECT_EQ(collect(answer, {"{\"answer\": [4"}).content, "{\"answer\": [4");
    EXPECT_FALSE(answer.cut_call());
}

TEST(ToolCallParser, Llama3JsonCall) {
    const Collected c = parse_every_way(ToolFormat::Llama3Json, " {\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}");
    EXPECT_EQ(c.content, "");
    ASSERT_EQ(c.calls.size(), 1u);
    EXPECT_EQ(c.calls[0].name, "get_weather");
    EXPECT_EQ(c.calls[0].arguments, "{\"city\": \"Paris\"}");
    const Collected tagged = parse_every_way(ToolFormat::Llama3Json, "<|python_tag|>{\"name\": \"f\", \"parameters\": {}}; {\"name\": \"g\", \"parameters\": {\"a\": 1}}");
    ASSERT_EQ(tagged.calls.size(), 2u);
    EXPECT_EQ(tagged.calls[1].arguments, "{\"a\": 1}");
}

TEST(ToolCallParser, Llama3PlainAnswersAndOtherJsonAreContent) {
    EXPECT_EQ(parse_every_way(ToolFormat::Llama3Json, "The weather is {fine}.").content, "The weather is {fine}.");
    const Collected json_answer = parse_every_way(ToolFormat::Llama3Json, "{\"answer\": 4}");
    EXPECT_TRUE(json_answer.calls.empty());
    EXPECT_EQ(json_answer.content, "{\"answer\": 4}");
}

}  // namespace
}  // namespace forge::llm::tool_calls
