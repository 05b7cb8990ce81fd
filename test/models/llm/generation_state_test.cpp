// Stop strings in a stream (never shown, even split over pieces) and the single-sequence
// SequenceGenerator: prefix reuse gives the same tokens as a fresh run, max tokens, stop strings in
// real decoding, cancellation from the sink, token counts, a token constraint obeyed.
#include "models/llm/sequence_generator.h"
#include "models/llm/stop_strings.h"
#include "test/models/llm/golden.h"

#include <gtest/gtest.h>

#include <limits>

namespace forge::llm {
namespace {

std::string stream(StopStrings& stops, std::initializer_list<std::string_view> pieces) {
    std::string shown;
    for (std::string_view p : pieces) shown += stops.push(p);
    return shown + stops.flush();
}

TEST(StopStrings, NeverShowsAStopStringEvenSplitOverPieces) {
    StopStrings stops({"</end>", "STOP"});
    EXPECT_EQ(stream(stops, {"hello </", "en", "d> more"}), "hello ");
    EXPECT_TRUE(stops.stopped());
    stops.reset();
    EXPECT_EQ(stream(stops, {"ST", "O", "P"}), "");
    stops.reset();
    EXPECT_EQ(stream(stops, {"a S", "T", "x", " b"}), "a STx b");  // a false start is shown after all
    EXPECT_FALSE(stops.stopped());
}

TEST(StopStrings, HoldsBackOnlyWhatCouldStillBeAStop) {
    StopStrings stops({"abc"});
    EXPECT_EQ(stops.push("xxab"), "xx");
    EXPECT_EQ(stops.push("d"), "abd");
    EXPECT_EQ(stops.push("zab"), "z");
    EXPECT_EQ(stops.flush(), "ab");
}

struct Fixture {
    Model model = Model::load(test::golden_path("qwen3-q8_0.gguf"));
    PromptFormat format{model};
    SessionOptions options{64, 512, KvType::F16};
};

GenerationStats greedy(SequenceGenerator& g, std::span<const std::int32_t> prompt, const GenerationOptions& o, std::string& text) {
    Sampler sampler(o.sampling, 511);
    text.clear();
    return g.generate(prompt, o, sampler, [&](std::string_view piece) {
        text += piece;
        return true;
    });
}

GenerationOptions greedy_options(std::int64_t max_tokens) {
    GenerationOptions o;
    o.sampling.temperature = 0;
    o.max_tokens = max_tokens;
    return o;
}

TEST(SequenceGenerator, PrefixReuseGivesTheSameTokensAsAFreshRun) {
    Fixture f;
    const std::vector<std::int32_t> first = {72, 101, 108, 108, 111, 44, 256, 300};
    std::vector<std::int32_t> second = first;
    second.insert(second.end(), {350, 400, 450});
    SequenceGenerator reused(f.model, f.format.tokenizer(), f.options);
    std::string text;
    greedy(reused, first, greedy_options(5), text);
    const GenerationStats stats = greedy(reused, second, greedy_options(8), text);
    EXPECT_EQ(stats.cached_tokens, static_cast<std::int64_t>(first.size()));
    EXPECT_EQ(stats.generated_tokens, 8);
    EXPECT_EQ(stats.finish, FinishReason::MaxTokens);
    SequenceGenerator fresh(f.model, f.format.tokenizer(), f.options);
    std::string fresh_text;
    greedy(fresh, second, greedy_options(8), fresh_text);
    EXPECT_EQ(reused.answer(), fresh.answer());
    EXPECT_EQ(text, fresh_text);
}

TEST(SequenceGenerator, StopsAtAStopStringWithoutShowingIt) {
    Fixture f;
    const std::vector<std::int32_t> prompt = {72, 101, 108, 108, 111};
    SequenceGenerator g(f.model, f.format.tokenizer(), f.options);
    std::string full;
    greedy(g, prompt, greedy_options(16), full);
    ASSERT_GE(full.size(), 6u);
    // A stop string made of the middle of the greedy answer (it may span token boundaries).
    GenerationOptions o = greedy_options(16);
    o.stop = {full.substr(3, 3)};
    std::string text;
    const GenerationStats stats = greedy(g, prompt, o, text);
    EXPECT_EQ(stats.finish, FinishReason::StopString);
    EXPECT_EQ(text, full.substr(0, full.find(o.stop[0])));
}

TEST(SequenceGenerator, TheSinkCancels) {
    Fixture f;
    SequenceGenerator g(f.model, f.format.tokenizer(), f.options);
    Sampler sampler(greedy_options(30).sampling, 511);
    int calls = 0;
    const std::vector<std::int32_t> prompt = {72, 101, 108};
    const GenerationStats stats =
        g.generate(prompt, greedy_options(30), sampler, [&](std::string_view) { return ++calls < 2; });
    EXPECT_EQ(stats.finish, FinishReason::Cancelled);
    EXPECT_LT(stats.generated_tokens, 30);
}

// Allows exactly one token sequence, then only end-of-generation: the simplest grammar.
class ForcedTokens : public TokenConstraint {
public:
    ForcedTokens(std::vector<std::int32_t> tokens, std::int32_t eos) : tokens_(std::move(tokens)), eos_(eos) {}
    void mask(std::span<float> logits) override {
        const std::int32_t allowed = next_ < tokens_.size() ? tokens_[next_] : eos_;
        for (std::size_t i = 0; i < logits.size(); ++i)
            if (static_cast<std::int32_t>(i) != allowed) logits[i] = -std::numeric_limits<float>::infinity();
    }
    void accept(std::int32_t token) override {
        ASSERT_LT(next_, tokens_.size());
        EXPECT_EQ(token, tokens_[next_]);
        ++next_;
    }

private:
    std::vector<std::int32_t> tokens_;
    std::int32_t eos_;
    std::size_t next_ = 0;
};

TEST(SequenceGenerator, FollowsATokenConstraintAtAnyTemperature) {
    Fixture f;
    const std::int32_t eos = f.format.tokenizer().eos_id();
    ASSERT_GE(eos, 0);
    const std::vector<std::int32_t> forced = {300, 72, 450, 101};
    for (const float temperature : {0.0f, 1.5f}) {
        SequenceGenerator g(f.model, f.format.tokenizer(), f.options);
        GenerationOptions o = greedy_options(20);
        o.sampling.temperature = temperature;
        o.sampling.seed = 7;
        o.constraint = std::make_shared<ForcedTokens>(forced, eos);
        std::string text;
        const GenerationStats stats = greedy(g, std::vector<std::int32_t>{72, 101, 108}, o, text);
        EXPECT_EQ(g.answer(), forced) << "temperature " << temperature;
        EXPECT_EQ(stats.finish, FinishReason::EndOfGeneration);
    }
}

}  // namespace
}  // namespace forge::llm
