// gpt-oss's harmony replies split into thinking, content and tool calls, whatever the pieces:
// whole, byte by byte, in every two-piece cut, and token by token through gpt-oss's real
// vocabulary (test/data/llm_text/gpt-oss-tokenizer.gguf.gz). The replies include ones cut from
// the reference renders of gpt-oss's chat template (jinja2, test/data/grammar/tool_templates.json):
// what the template writes for an assistant's reasoning and call must read back as them.
#include "models/llm/tokenizer/token_stream_decoder.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "models/llm/tool_calls/harmony_parser.h"
#include "test/models/llm_text/fixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace forge::llm::tool_calls {
namespace {

struct Split {
    std::string thinking, content;
    std::vector<ChatToolCall> calls;        // parser.calls()
    std::vector<ChatToolCall> from_deltas;  // the streamed deltas put together
};

void add(Split& split, const HarmonyOutput& out) {
    split.thinking += out.thinking;
    split.content += out.content;
    for (const ToolCallDelta& d : out.tool_calls) {
        if (!d.name.empty()) {
            ASSERT_EQ(d.index, static_cast<int>(split.from_deltas.size()));
            EXPECT_TRUE(d.arguments.empty());  // a call's first delta: id and name only
            split.from_deltas.push_back({d.id, d.name, ""});
        } else {
            ASSERT_LT(d.index, static_cast<int>(split.from_deltas.size()));
            split.from_deltas[d.index].arguments += d.arguments;
        }
    }
}

Split parse(const std::vector<std::string>& pieces) {
    HarmonyParser parser("call_");
    Split split;
    for (const std::string& piece : pieces) add(split, parser.push(piece));
    add(split, parser.finish());
    split.calls = parser.calls();
    return split;
}

bool same_calls(const std::vector<ChatToolCall>& a, const std::vector<ChatToolCall>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].id != b[i].id || a[i].name != b[i].name || a[i].arguments != b[i].arguments) return false;
    }
    return true;
}

// The reply parsed whole, byte by byte and cut in two at every byte must split the same way.
Split expect_any_pieces_give_the_same(const std::string& reply) {
    const Split whole = parse({reply});
    EXPECT_TRUE(same_calls(whole.calls, whole.from_deltas));
    std::vector<std::string> bytes;
    for (const char c : reply) bytes.emplace_back(1, c);
    std::vector<std::vector<std::string>> ways = {bytes};
    for (std::size_t cut = 1; cut < reply.size(); ++cut) ways.push_back({reply.substr(0, cut), reply.substr(cut)});
    for (const auto& pieces : ways) {
        const Split split = parse(pieces);
        EXPECT_EQ(split.thinking, whole.thinking) << reply;
        EXPECT_EQ(split.content, whole.content) << reply;
        EXPECT_TRUE(same_calls(split.calls, whole.calls)) << reply;
        EXPECT_TRUE(same_calls(split.from_deltas, whole.calls)) << reply;
    }
    return whole;
}

// Any pieces of `reply` give this thinking, content and these calls.
void expect_split(const std::string& reply, const std::string& thinking, const std::string& content,
                  const std::vector<ChatToolCall>& calls = {}) {
    const Split split = expect_any_pieces_give_the_same(reply);
    EXPECT_EQ(split.thinking, thinking) << reply;
    EXPECT_EQ(split.content, content) << reply;
    EXPECT_TRUE(same_calls(split.calls, calls)) << reply;
}

TEST(HarmonyParser, AnalysisIsThinkingFinalIsContent) {
    expect_split("<|channel|>analysis<|message|>User says hi. Reply <b>briefly</b>.<|end|>"
                 "<|start|>assistant<|channel|>final<|message|>Hello! How can I help?",
                 "User says hi. Reply <b>briefly</b>.", "Hello! How can I help?");
}

TEST(HarmonyParser, ReturnTokenPrintedEndsTheMessage) {
    expect_split("<|channel|>final<|message|>4<|return|>", "", "4");
}

TEST(HarmonyParser, CommentaryToAFunctionIsAToolCall) {
    expect_split("<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary "
                 "to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>",
                 "Need weather.", "", {{"call_0", "get_weather", "{\"city\":\"Paris\"}"}});
}

TEST(HarmonyParser, RecipientBeforeTheChannelAndTwoCalls) {
    expect_split(" to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\"}<|end|>"
                 "<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{\"zone\": \"Asia/Tokyo\"}",
                 "", "",
                 {{"call_0", "get_weather", "{\"city\": \"Paris\"}"}, {"call_1", "get_time", "{\"zone\": \"Asia/Tokyo\"}"}});
}

TEST(HarmonyParser, CommentaryPreambleAndPlainTextAreContent) {
    expect_split("<|channel|>commentary<|message|>Checking the weather now.", "", "Checking the weather now.");
    expect_split("The answer is 4, <b>not</b> 5.", "", "The answer is 4, <b>not</b> 5.");
    expect_split("t", "", "t");  // "t" could open "to=": held, then released as text
}

TEST(HarmonyParser, AnEmptyMessageBeforeTheNextOne) {
    expect_split("<|channel|>analysis<|message|><|start|>assistant<|channel|>final<|message|>Hi", "", "Hi");
}

TEST(HarmonyParser, AHeaderTooLongIsText) {
    const std::string header = "<|start|>" + std::string(300, 'x');
    expect_split(header + "<|start|>assistant<|channel|>final<|message|>Hi", "", header + "Hi");
}

TEST(HarmonyParser, AHeaderCutShortIsDropped) {
    expect_split("<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|chan", "Hmm.", "");
}

TEST(HarmonyParser, DetectsTheTemplate) {
    std::ifstream in(std::string(FORGE_TEST_DATA_DIR) + "/chat_templates/gpt-oss.jinja");
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_TRUE(is_harmony_template(text.str()));
    EXPECT_FALSE(is_harmony_template("{% for m in messages %}<|im_start|>{{ m.content }}{% endfor %}"));
}

// What gpt-oss's template (rendered by jinja2) writes for the assistant's turn after the user's
// question, read back: the reasoning, the call's name and its arguments.
TEST(HarmonyParser, ReadsBackTheTemplatesRenderOfACall) {
    std::ifstream in(std::string(FORGE_TEST_DATA_DIR) + "/grammar/tool_templates.json");
    const auto goldens = nlohmann::json::parse(in);
    int checked = 0;
    for (const auto& g : goldens) {
        if (g["template"] != "gpt-oss" || g["conversation"] != "reasoning_call_result") continue;
        const std::string rendered = g["expected"];
        const std::string question = "What is the weather in Paris, and the time in Tokyo?<|end|><|start|>assistant";
        const auto from = rendered.find(question);
        const auto to = rendered.find("<|start|>functions.");
        ASSERT_NE(from, std::string::npos);
        ASSERT_NE(to, std::string::npos);
        const std::string reply = rendered.substr(from + question.size(), to - from - question.size());
        const auto split = expect_any_pieces_give_the_same(reply);
        const auto& message = g["messages"][2];
        EXPECT_EQ(split.thinking, message["reasoning_content"].get<std::string>()) << reply;
        EXPECT_EQ(split.content, "") << reply;
        ASSERT_EQ(split.calls.size(), 1u) << reply;
        EXPECT_EQ(split.calls[0].name, message["tool_calls"][0]["name"].get<std::string>());
        EXPECT_EQ(nlohmann::json::parse(split.calls[0].arguments),
                  nlohmann::json::parse(message["tool_calls"][0]["arguments"].get<std::string>()));
        ++checked;
    }
    EXPECT_EQ(checked, 1);
}

// Token by token through gpt-oss's vocabulary, as serve decodes a reply: the framing tokens
// print (user-defined), <|return|> / <|call|> end generation and print nothing.
TEST(HarmonyParser, TokenByTokenThroughTheRealVocabulary) {
    const auto gguf = test::load_gguf_gz("gpt-oss-tokenizer.gguf.gz");
    const auto tokenizer = Tokenizer::from_gguf(gguf.file);
    const std::string reply =
        "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather "
        "<|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>";
    const auto ids = tokenizer.encode(reply, false, true);
    EXPECT_TRUE(tokenizer.is_end_of_generation(ids.back()));
    TokenStreamDecoder decoder(tokenizer);
    std::vector<std::string> pieces;
    for (const std::int32_t id : ids) pieces.push_back(decoder.push(id));
    pieces.push_back(decoder.flush());
    const Split split = parse(pieces);
    EXPECT_EQ(split.thinking, "Think.");
    EXPECT_EQ(split.content, "");
    ASSERT_EQ(split.calls.size(), 1u);
    EXPECT_EQ(split.calls[0].name, "get_weather");
    EXPECT_EQ(split.calls[0].arguments, "{\"city\":\"Paris\"}");
}

}  // namespace
}  // namespace forge::llm::tool_calls
