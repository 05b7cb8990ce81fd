// models/bert against llama.cpp (test/data/bert: tools/make_bert_goldens.py ran node-llama-cpp
// 3.22.1 on random-weight bert / nomic-bert files): pooled vectors by cosine per vector, the
// reranker's raw score and its pair's tokens; and clear errors for bad files.
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "models/bert/embedding_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace forge::bert {
namespace {

using ::testing::HasSubstr;

std::string data_path(const std::string& file) { return std::string(FORGE_BERT_TEST_DATA) + "/" + file; }

nlohmann::json golden(const std::string& name) {
    std::ifstream in(data_path(name + ".json"));
    return nlohmann::json::parse(in);
}

double cosine(const std::vector<float>& a, const std::vector<double>& b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        ab += a[i] * b[i];
        aa += static_cast<double>(a[i]) * a[i];
        bb += b[i] * b[i];
    }
    return ab / std::sqrt(aa * bb);
}

// max_gap bounds 1 - cosine between forge's and llama.cpp's vector for every text of the golden
// (about 10x the worst measured, written at each call). llama.cpp's GELU reads a table of f16
// values (GGML_GELU_FP16) where forge computes it in f32.
void expect_vectors_match(const std::string& name, double max_gap) {
    const auto g = golden(name);
    auto model = load_embedding_model(data_path(name + ".gguf"));
    double worst = 0;
    for (const auto& item : g["texts"]) {
        const auto tokens = item["tokens"].get<std::vector<std::int32_t>>();
        const auto expected = item["embedding"].get<std::vector<double>>();
        const std::vector<float> got = model->embed(tokens);
        ASSERT_EQ(got.size(), expected.size()) << item["text"];
        const double gap = 1 - cosine(got, expected);
        worst = std::max(worst, gap);
        EXPECT_LT(gap, max_gap) << name << ": " << item["text"];
    }
    std::printf("%s: worst 1 - cosine %.3g\n", name.c_str(), worst);
}

// Measured worst 1 - cosine (simd build): 4.7e-8, 4.3e-7, 4.4e-8.
TEST(BertEmbedding, MeanPoolingMatchesLlamaCpp) { expect_vectors_match("bert-mean", 5e-7); }
TEST(BertEmbedding, ClsPoolingMatchesLlamaCpp) { expect_vectors_match("bert-cls", 5e-6); }
TEST(BertEmbedding, NomicBertMatchesLlamaCpp) { expect_vectors_match("nomic-bert-mean", 5e-7); }

// Files as downloaded: f16 matrices (llama.cpp rounds the activations to f16 for them, forge
// keeps f32) and Q8_0 (both quantize the activations to Q8_0, so one activation rounded the
// other way moves a vector visibly). Measured worst 1 - cosine: 1.2e-7 and 4.8e-5.
TEST(BertEmbedding, F16FileMatchesLlamaCpp) { expect_vectors_match("bert-f16-mean", 1.5e-6); }
TEST(BertEmbedding, Q8_0FileMatchesLlamaCpp) { expect_vectors_match("nomic-bert-q8_0-mean", 5e-4); }

// Several inputs in one pass (embed_batch, as serve runs a request's inputs) give each input
// embed()'s vector bit for bit: every op but attention is row by row, and each input attends
// to itself only. Inputs of different lengths, one repeated, and a batch longer than a pass.
void expect_batch_equals_one_at_a_time(const std::string& name) {
    const auto g = golden(name);
    auto model = load_embedding_model(data_path(name + ".gguf"));
    std::vector<std::vector<std::int32_t>> inputs;
    for (const auto& item : g.contains("texts") ? g["texts"] : g["pairs"]) inputs.push_back(item["tokens"].get<std::vector<std::int32_t>>());
    inputs.push_back(inputs.front());
    inputs.push_back({inputs.front().front()});  // one token
    const std::vector<std::int32_t> longest(static_cast<std::size_t>(model->n_ctx()), inputs.front().back());
    for (int i = 0; i < 20; ++i) inputs.push_back(longest);  // 20 x n_ctx tokens: several passes
    const std::vector<std::vector<float>> batch = model->embed_batch(inputs);
    ASSERT_EQ(batch.size(), inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(batch[i], model->embed(inputs[i])) << name << ": input " << i;
}

TEST(BertEmbedding, BatchIsOneAtATimeBitForBit) {
    for (const char* name : {"bert-mean", "bert-cls", "bert-f16-mean", "nomic-bert-mean", "nomic-bert-q8_0-mean", "bert-rank"}) {
        expect_batch_equals_one_at_a_time(name);
    }
}

TEST(BertEmbedding, ReportsItsShape) {
    const auto model = load_embedding_model(data_path("nomic-bert-mean.gguf"));
    EXPECT_EQ(model->pooling(), llm::Pooling::Mean);
    EXPECT_EQ(model->n_embd(), 64);
    EXPECT_EQ(model->n_ctx(), 128);
}

// Raw classifier scores (before any sigmoid) of about -0.3: measured max |Δ| 2.8e-4 (the [CLS]
// row alone, through the f16 GELU table's error and the tanh head), bound 3e-3.
TEST(BertRank, ScoresMatchLlamaCpp) {
    const auto g = golden("bert-rank");
    auto model = load_embedding_model(data_path("bert-rank.gguf"));
    ASSERT_EQ(model->pooling(), llm::Pooling::Rank);
    for (const auto& pair : g["pairs"]) {
        const std::vector<float> score = model->embed(pair["tokens"].get<std::vector<std::int32_t>>());
        ASSERT_EQ(score.size(), 1u);
        EXPECT_NEAR(score[0], pair["score"].get<double>(), 3e-3) << pair["document"];
    }
}

TEST(BertRank, PairTokensMatchLlamaCpp) {
    const auto g = golden("bert-rank");
    const auto model = load_embedding_model(data_path("bert-rank.gguf"));
    for (const auto& pair : g["pairs"]) {
        EXPECT_EQ(pair_tokens(model->tokenizer(), pair["query"].get<std::string>(), pair["document"].get<std::string>()),
                  pair["tokens"].get<std::vector<std::int32_t>>());
    }
}

std::string error_of(auto&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(BertBadInput, EmbedRejectsBadTokens) {
    auto model = load_embedding_model(data_path("bert-mean.gguf"));
    EXPECT_THAT(error_of([&] { model->embed({}); }), HasSubstr("no tokens"));
    const std::vector<std::int32_t> out_of_range{101, 348, 102};
    EXPECT_THAT(error_of([&] { model->embed(out_of_range); }), HasSubstr("token id 348 is out of range"));
    const std::vector<std::int32_t> too_long(129, 150);
    EXPECT_THAT(error_of([&] { model->embed(too_long); }), HasSubstr("129 tokens, more than the model's context of 128"));
}

// A copy of a golden with `edit` applied to each tensor (false drops it), loaded from a file.
template <typename Edit>
std::string load_error_after(Edit&& edit, const std::string& name = "bert-mean") {
    const gguf::GgufFile source = gguf::GgufFile::open(data_path(name + ".gguf"));
    gguf::GgufWriter writer;
    for (const auto& kv : source.metadata()) writer.set(kv.key, kv.value);
    for (const auto& info : source.tensors()) {
        gguf::TensorInfo copy = info;
        if (!edit(writer, copy)) continue;
        writer.add_tensor(copy.name, copy.dtype, copy.dims, source.tensor_bytes(info).first(copy.nbytes));
    }
    const std::string path = ::testing::TempDir() + "/edited-bert.gguf";
    writer.write(path);
    const std::string error = error_of([&] { load_embedding_model(path); });
    std::remove(path.c_str());
    return error;
}

TEST(BertBadInput, MissingTensorIsNamed) {
    EXPECT_THAT(load_error_after([](gguf::GgufWriter&, gguf::TensorInfo& t) { return t.name != "blk.1.attn_v.bias"; }),
                HasSubstr("tensor blk.1.attn_v.bias is missing"));
    EXPECT_THAT(load_error_after([](gguf::GgufWriter&, gguf::TensorInfo& t) { return t.name != "position_embd.weight"; }),
                HasSubstr("tensor position_embd.weight is missing"));
}

TEST(BertBadInput, MisShapedTensorIsNamed) {
    const auto error = load_error_after([](gguf::GgufWriter&, gguf::TensorInfo& t) {
        if (t.name == "blk.0.ffn_up.weight") {  // half the rows
            t.dims[1] /= 2;
            t.nbytes /= 2;
        }
        return true;
    });
    EXPECT_THAT(error, HasSubstr("tensor blk.0.ffn_up.weight has shape [64, 64], expected [128, 64]"));
}

TEST(BertBadInput, MissingKeyIsNamed) {
    const auto error = load_error_after([](gguf::GgufWriter& w, gguf::TensorInfo&) {
        w.remove("bert.attention.layer_norm_epsilon");
        return true;
    });
    EXPECT_THAT(error, HasSubstr("missing metadata key 'bert.attention.layer_norm_epsilon'"));
}

TEST(BertBadInput, RankWithoutClassifierHeadIsNamed) {
    const auto error = load_error_after([](gguf::GgufWriter&, gguf::TensorInfo& t) { return t.name != "cls.output.weight"; },
                                        "bert-rank");
    EXPECT_THAT(error, HasSubstr("'cls.output.weight' is missing"));
}

TEST(BertBadInput, OtherArchitectureIsRefused) {
    const auto error = load_error_after([](gguf::GgufWriter& w, gguf::TensorInfo&) {
        w.set("general.architecture", std::string("llama"));
        return true;
    });
    EXPECT_THAT(error, HasSubstr("'llama' is not a BERT-family encoder"));
}

}  // namespace
}  // namespace forge::bert
