// forge's embedding and rerank models against llama.cpp (test/data/llm/embed/, made by
// tools/llm_goldens/embeddings.py): random-weight qwen3 and llama files with each pooling,
// and a Qwen3-Reranker-shaped file, on token inputs from one token to 600 (more than one
// 512-row pass). Vectors are compared by cosine, scores by value and order.
#include "models/bert/embedding_model.h"
#include "models/llm/embedding_math.h"
#include "models/llm/embedding_model.h"
#include "models/llm/llama_embedding_model.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

namespace forge::llm {
namespace {

std::string embed_path(const std::string& file) { return std::string(FORGE_LLM_TEST_DATA) + "/embed/" + file; }

nlohmann::json load_golden(const std::string& name) {
    std::ifstream in(embed_path(name + ".json"));
    EXPECT_TRUE(in.good()) << "missing golden " << name;
    return nlohmann::json::parse(in);
}

double cosine(std::span<const float> a, std::span<const float> b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        ab += static_cast<double>(a[i]) * b[i];
        aa += static_cast<double>(a[i]) * a[i];
        bb += static_cast<double>(b[i]) * b[i];
    }
    return ab / std::sqrt(aa * bb);
}

// 1 - cosine per vector, at most `bound`; returns the largest, for the bound's comment.
double check_embeddings(const std::string& name, Pooling expected, double bound) {
    const nlohmann::json golden = load_golden(name);
    const auto model = load_embedding_model(embed_path(name + ".gguf"));
    EXPECT_EQ(model->pooling(), expected);
    double worst = 0;
    const auto& inputs = golden.at("inputs");
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto tokens = inputs[i].get<std::vector<std::int32_t>>();
        const auto expected_vector = golden.at("embeddings")[i].get<std::vector<float>>();
        const std::vector<float> got = model->embed(tokens);
        EXPECT_EQ(got.size(), expected_vector.size()) << name << " input " << i;
        if (got.size() != expected_vector.size()) continue;
        const double distance = 1.0 - cosine(got, expected_vector);
        worst = std::max(worst, distance);
        EXPECT_LE(distance, bound) << name << " input " << i << " (" << tokens.size() << " tokens)";
    }
    return worst;
}

// Measured worst 1 - cosine per vector against llama.cpp (f16 KV cache both): qwen3 f32 last
// 1.6e-6 (the 30-token input), llama q8_0 mean 3.2e-5 (Q8_0 activation roundings that flip),
// qwen3 q8_0 cls 6e-15 (the first token attends to itself only). Bounds at about 10x, and
// never under 1e-7.
TEST(EmbeddingOracle, Qwen3LastPoolingMatchesLlamaCpp) { check_embeddings("qwen3-embed-last", Pooling::Last, 2e-5); }
TEST(EmbeddingOracle, LlamaMeanPoolingMatchesLlamaCpp) { check_embeddings("llama-embed-mean", Pooling::Mean, 3e-4); }
TEST(EmbeddingOracle, Qwen3ClsPoolingMatchesLlamaCpp) { check_embeddings("qwen3-embed-cls", Pooling::Cls, 1e-7); }

// llama.cpp's score is its softmax over the yes/no head: forge's logit through a sigmoid.
// Measured worst |difference| 3.6e-4 (the 30-token input; 1e-5 for the short ones; the same
// input has the last-pooling test's worst cosine); bound 4e-3. The order by score is exact.
TEST(EmbeddingOracle, Qwen3RerankScoresAndOrderMatchLlamaCpp) {
    const nlohmann::json golden = load_golden("qwen3-rerank");
    const auto model = load_embedding_model(embed_path("qwen3-rerank.gguf"));
    ASSERT_EQ(model->pooling(), Pooling::Rank);
    std::vector<double> ours, theirs;
    for (std::size_t i = 0; i < golden.at("inputs").size(); ++i) {
        const auto tokens = golden.at("inputs")[i].get<std::vector<std::int32_t>>();
        const std::vector<float> logit = model->embed(tokens);
        ASSERT_EQ(logit.size(), 1u);
        ours.push_back(relevance_score(logit[0]));
        theirs.push_back(golden.at("scores")[i].get<double>());
        EXPECT_NEAR(ours.back(), theirs.back(), 4e-3) << "input " << i;
    }
    const auto order = [](const std::vector<double>& scores) {
        std::vector<std::size_t> index(scores.size());
        std::iota(index.begin(), index.end(), 0);
        std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
        return index;
    };
    EXPECT_EQ(order(ours), order(theirs));
}

TEST(EmbeddingModel, PoolingOverrideAndNoneGivesOneVectorPerToken) {
    EmbeddingOptions options;
    options.pooling = Pooling::None;
    const auto model = load_embedding_model(embed_path("qwen3-embed-last.gguf"), options);
    const std::vector<std::int32_t> tokens = {72, 101, 108};
    const std::vector<float> all = model->embed(tokens);
    ASSERT_EQ(all.size(), 3u * static_cast<std::size_t>(model->n_embd()));
    // The last token's row is what last pooling returns.
    const auto last = load_embedding_model(embed_path("qwen3-embed-last.gguf"))->embed(tokens);
    const std::span<const float> row = std::span(all).last(static_cast<std::size_t>(model->n_embd()));
    EXPECT_TRUE(std::equal(row.begin(), row.end(), last.begin()));
}

TEST(EmbeddingModel, BadInputsThrowNamingTheProblem) {
    EmbeddingOptions options;
    options.n_ctx = 8;
    const auto model = load_embedding_model(embed_path("qwen3-embed-last.gguf"), options);
    EXPECT_EQ(model->n_ctx(), 8);
    const auto message = [&](std::vector<std::int32_t> tokens) {
        try {
            model->embed(tokens);
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message({}).find("no tokens"), std::string::npos);
    EXPECT_NE(message(std::vector<std::int32_t>(9, 1)).find("more than the 8"), std::string::npos);
    EXPECT_NE(message({1, 511}).find("out of range"), std::string::npos);
    EXPECT_THROW(pooling_from_name("max"), Error);
    EXPECT_EQ(pooling_from_name("last"), Pooling::Last);
    EXPECT_EQ(pooling_name(Pooling::Rank), "rank");
}

TEST(EmbeddingModel, RerankTemplateIsFilledOnceAndTokenized) {
    const auto model = load_embedding_model(embed_path("qwen3-rerank.gguf"));
    const std::vector<std::int32_t> got = model->rerank_tokens("q {document}", "d");
    const std::string text =
        "<|im_start|>system\nJudge: yes or no.<|im_end|>\n<Query>: q {document}\n<Document>: d<|im_end|>\n";
    EXPECT_EQ(got, model->tokenizer().encode(text, false, true));
}

TEST(EmbeddingModel, AnotherArchitectureIsRefusedByName) {
    const std::string path = std::string(FORGE_TEST_DATA_DIR) + "/asr/ctc.gguf";
    try {
        load_embedding_model(path);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("is not a text encoder"), std::string::npos) << e.what();
    }
    EXPECT_THROW(load_embedding_model(std::string(FORGE_TEST_DATA_DIR) + "/missing.gguf"), Error);
}

// The one loader serves both families: a bert file comes back as models/bert's encoder (the same
// vector as bert::load_embedding_model gives, which test/models/bert checks against llama.cpp),
// and refuses a --pooling override its file does not have.
TEST(EmbeddingModel, TheLoaderDispatchesTheBertFamily) {
    const std::string path = std::string(FORGE_TEST_DATA_DIR) + "/bert/bert-mean.gguf";
    const std::unique_ptr<EmbeddingModel> any = load_embedding_model(path);
    const std::unique_ptr<EmbeddingModel> bert = bert::load_embedding_model(path);
    EXPECT_EQ(any->pooling(), Pooling::Mean);
    const std::vector<std::int32_t> tokens = any->tokenizer().encode("Hello, world!", true, true);
    EXPECT_EQ(any->embed(tokens), bert->embed(tokens));
    EmbeddingOptions last;
    last.pooling = Pooling::Last;
    EXPECT_THROW(load_embedding_model(path, last), FormatError);
    // Rerank input, as the routes and forge embed --query build it: bert's pair, not [BOS] q [EOS] d [EOS].
    const auto reranker = load_embedding_model(std::string(FORGE_TEST_DATA_DIR) + "/bert/bert-rank.gguf");
    EXPECT_EQ(reranker->rerank_tokens("what is a cat", "a feline"), bert::pair_tokens(reranker->tokenizer(), "what is a cat", "a feline"));
}

TEST(EmbeddingMath, NormalizeL2AndRelevanceScore) {
    std::vector<float> v = {3, 4};
    normalize_l2(v);
    EXPECT_FLOAT_EQ(v[0], 0.6f);
    EXPECT_FLOAT_EQ(v[1], 0.8f);
    std::vector<float> zero = {0, 0};
    normalize_l2(zero);
    EXPECT_EQ(zero[0], 0.0f);
    EXPECT_FLOAT_EQ(relevance_score(0.0f), 0.5f);
}

}  // namespace
}  // namespace forge::llm
