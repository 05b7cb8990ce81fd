// The grammar engine against an independent JSON Schema validator (Python jsonschema, via the
// committed goldens of tools/grammar/make_schema_goldens.py): constrained samples from random
// logits on the real Qwen3 vocabulary are reproduced exactly and were all valid; no instance
// the grammar accepts is one jsonschema rejects; canonical valid instances are accepted.
//
// With FORGE_WRITE_GRAMMAR_SAMPLES=FILE the test writes its samples there instead (the script's
// step 2) and checks nothing else.
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/matcher.h"
#include "test/models/llm/grammar_testing.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

namespace forge::llm::grammar {
namespace {

using json = nlohmann::ordered_json;
constexpr int kSampleTokens = 400;

json read_goldens() {
    std::ifstream in(std::string(FORGE_TEST_DATA_DIR) + "/grammar/schema_goldens.json");
    return json::parse(in);
}

TEST(GrammarGoldens, SamplesReproduceAndJsonschemaFoundThemValid) {
    const json goldens = read_goldens();
    const char* write_path = std::getenv("FORGE_WRITE_GRAMMAR_SAMPLES");
    json written = json::object();
    int checked = 0;
    for (const json& entry : goldens) {
        const auto g = compile_json_schema(entry["schema"]);
        json samples = json::array();
        for (const json& seed : entry["seeds"]) {
            bool ended = false;
            const std::string text = random_constrained(g, seed.get<unsigned>(), kSampleTokens, ended);
            samples.push_back({{"seed", seed}, {"ended", ended}, {"text", text}});
        }
        if (write_path) {
            written[entry["name"].get<std::string>()] = samples;
            continue;
        }
        ASSERT_EQ(samples.size(), entry["samples"].size()) << entry["name"];
        for (std::size_t i = 0; i < samples.size(); ++i) {
            const json& golden = entry["samples"][i];
            EXPECT_EQ(samples[i]["text"], golden["text"]) << entry["name"] << " seed " << golden["seed"];
            EXPECT_EQ(samples[i]["ended"], golden["ended"]) << entry["name"];
            if (golden["ended"].get<bool>()) {
                EXPECT_TRUE(golden["valid"].get<bool>()) << entry["name"] << ": jsonschema rejected " << golden["text"];
                ++checked;
            }
        }
    }
    if (write_path) {
        std::ofstream(write_path) << written.dump(1);
        return;
    }
    EXPECT_GE(checked, 20);  // most samples end within kSampleTokens
}

TEST(GrammarGoldens, AcceptedInstancesAreValidAndCanonicalValidOnesAccepted) {
    if (std::getenv("FORGE_WRITE_GRAMMAR_SAMPLES")) GTEST_SKIP();
    for (const json& entry : read_goldens()) {
        const auto g = compile_json_schema(entry["schema"]);
        for (const json& instance : entry["instances"]) {
            Matcher m(g);
            const std::string text = instance["text"];
            const bool accepted = m.accept(text) && m.complete();
            const bool valid = instance["valid"];
            if (accepted) {
                EXPECT_TRUE(valid) << entry["name"] << ": the grammar accepts what jsonschema rejects: " << text;
            }
            if (valid && instance["canonical"].get<bool>()) {
                EXPECT_TRUE(accepted) << entry["name"] << ": rejected " << text;
            }
        }
    }
}

}  // namespace
}  // namespace forge::llm::grammar
