// Inputs forge must refuse with one clear error: a file that is not a GGUF, an architecture it
// does not run, a missing or mis-shaped tensor, a token id out of range, and more tokens than
// the context holds.
#include "core/error.h"
#include "core/gguf/gguf_writer.h"
#include "models/llm/model.h"
#include "models/llm/session.h"
#include "test/models/llm/golden.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace forge::llm {
namespace {

using ::testing::HasSubstr;

const std::string kModel = test::golden_path("llama-f32.gguf");

// The message of the error `f` throws ("" if it throws none).
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// A copy of a golden (the llama one by default) with `edit` applied, as bytes the test keeps
// alive.
template <typename Edit>
std::vector<std::byte> edited_model(Edit&& edit, const std::string& model = kModel) {
    const gguf::GgufFile source = gguf::GgufFile::open(model);
    gguf::GgufWriter writer;
    for (const auto& kv : source.metadata()) writer.set(kv.key, kv.value);
    for (const auto& info : source.tensors()) {
        gguf::TensorInfo copy = info;
        if (!edit(writer, copy)) continue;  // dropped
        writer.add_tensor(copy.name, copy.dtype, copy.dims, source.tensor_bytes(info).first(copy.nbytes));
    }
    return writer.to_bytes();
}

// Written to a file: weights are borrowed from a mapping, as in real use.
std::string load_error(const std::vector<std::byte>& bytes) {
    const std::string path = ::testing::TempDir() + "/edited.gguf";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    const std::string error = error_of([&] { Model::load(path); });
    std::remove(path.c_str());
    return error;
}

TEST(LlmBadInput, NotAGguf) {
    const std::string path = ::testing::TempDir() + "/not_a_gguf.gguf";
    std::ofstream(path) << "this is plain text, not a model";
    EXPECT_THAT(error_of([&] { Model::load(path); }), HasSubstr("GGUF"));
    std::remove(path.c_str());
}

TEST(LlmBadInput, UnsupportedArchitecture) {
    const auto bytes = edited_model([](gguf::GgufWriter& w, gguf::TensorInfo&) {
        w.set("general.architecture", std::string("mamba"));
        return true;
    });
    EXPECT_THAT(load_error(bytes), HasSubstr("unsupported architecture 'mamba'"));
}

TEST(LlmBadInput, UnsupportedRopeScaling) {
    const auto bytes = edited_model([](gguf::GgufWriter& w, gguf::TensorInfo&) {
        w.set("llama.rope.scaling.type", std::string("longrope"));
        return true;
    });
    EXPECT_THAT(load_error(bytes), HasSubstr("llama.rope.scaling.type 'longrope' is not supported"));
}

TEST(LlmBadInput, MisShapedRopeFreqs) {
    const auto bytes = edited_model(
        [](gguf::GgufWriter&, gguf::TensorInfo& t) {
            if (t.name == "rope_freqs.weight") {  // one divisor short
                t.dims[0] -= 1;
                t.nbytes -= sizeof(float);
            }
            return true;
        },
        test::golden_path("llama-rope-freqs.gguf"));
    EXPECT_THAT(load_error(bytes), HasSubstr("tensor rope_freqs.weight has shape [7], expected [8]"));
}

TEST(LlmBadInput, MissingTensor) {
    const auto bytes = edited_model([](gguf::GgufWriter&, gguf::TensorInfo& t) { return t.name != "blk.1.ffn_up.weight"; });
    EXPECT_THAT(load_error(bytes), HasSubstr("tensor blk.1.ffn_up.weight is missing"));
}

TEST(LlmBadInput, MisShapedTensor) {
    const auto bytes = edited_model([](gguf::GgufWriter&, gguf::TensorInfo& t) {
        if (t.name == "blk.0.attn_k.weight") {  // keep the bytes of a smaller matrix
            t.dims[1] /= 2;
            t.nbytes /= 2;
        }
        return true;
    });
    EXPECT_THAT(load_error(bytes), HasSubstr("tensor blk.0.attn_k.weight has shape [16, 64], expected [32, 64]"));
}

// phi3's fused tensors and LongRoPE factors are checked like the others.
const std::string kPhi3 = test::golden_path("phi3-f32.gguf");

TEST(LlmBadInput, MisShapedFusedQkv) {
    const auto bytes = edited_model(
        [](gguf::GgufWriter&, gguf::TensorInfo& t) {
            if (t.name == "blk.0.attn_qkv.weight") {  // v's rows left out
                t.dims[1] -= 32;
                t.nbytes = t.nbytes / 4 * 3;
            }
            return true;
        },
        kPhi3);
    EXPECT_THAT(load_error(bytes), HasSubstr("tensor blk.0.attn_qkv.weight has shape [96, 64], expected [128, 64]"));
}

TEST(LlmBadInput, NeitherFusedNorSeparateQkv) {
    const auto bytes = edited_model([](gguf::GgufWriter&, gguf::TensorInfo& t) { return t.name != "blk.1.attn_qkv.weight"; },
                                    kPhi3);
    EXPECT_THAT(load_error(bytes),
                HasSubstr("tensor blk.1.attn_q.weight is missing (and there is no fused blk.1.attn_qkv.weight)"));
}

TEST(LlmBadInput, Phi3GateUpIsOneTensor) {
    const auto bytes = edited_model(
        [](gguf::GgufWriter&, gguf::TensorInfo& t) {
            if (t.name == "blk.1.ffn_up.weight") {  // up's rows alone, as a llama file has them
                t.dims[1] /= 2;
                t.nbytes /= 2;
            }
            return true;
        },
        kPhi3);
    EXPECT_THAT(load_error(bytes), HasSubstr("tensor blk.1.ffn_up.weight has shape [128, 64], expected [256, 64]"));
}

TEST(LlmBadInput, MisShapedLongRopeFactors) {
    const auto bytes = edited_model(
        [](gguf::GgufWriter&, gguf::TensorInfo& t) {
            if (t.name == "rope_factors_long.weight") {  // one divisor short
                t.dims[0] -= 1;
                t.nbytes -= sizeof(float);
            }
            return true;
        },
        kPhi3);
    EXPECT_THAT(load_error(bytes), HasSubstr("tensor rope_factors_long.weight has shape [5], expected [6]"));
}

// A mixture-of-experts file without one of llama.cpp's expert keys or tensors.
const std::string kMoeModel = test::golden_path("qwen3moe-q8_0.gguf");

TEST(LlmBadInput, MissingExpertKey) {
    for (const std::string key : {"qwen3moe.expert_count", "qwen3moe.expert_used_count"}) {
        const auto bytes = edited_model(
            [&](gguf::GgufWriter& w, gguf::TensorInfo&) {
                w.remove(key);
                return true;
            },
            kMoeModel);
        EXPECT_THAT(load_error(bytes), HasSubstr("missing metadata key '" + key + "'"));
    }
}

TEST(LlmBadInput, MoreExpertsUsedThanThereAre) {
    const auto bytes = edited_model(
        [](gguf::GgufWriter& w, gguf::TensorInfo&) {
            w.set("qwen3moe.expert_used_count", std::uint32_t{9});
            return true;
        },
        kMoeModel);
    EXPECT_THAT(load_error(bytes), HasSubstr("qwen3moe.expert_used_count"));
}

TEST(LlmBadInput, MissingExpertTensor) {
    for (const std::string name : {"blk.1.ffn_gate_inp.weight", "blk.0.ffn_gate_exps.weight", "blk.1.ffn_up_exps.weight",
                                   "blk.1.ffn_down_exps.weight"}) {
        const auto bytes = edited_model([&](gguf::GgufWriter&, gguf::TensorInfo& t) { return t.name != name; }, kMoeModel);
        EXPECT_THAT(load_error(bytes), HasSubstr("tensor " + name + " is missing"));
    }
}

TEST(LlmBadInput, MisShapedExpertTensor) {
    const auto bytes = edited_model(
        [](gguf::GgufWriter&, gguf::TensorInfo& t) {
            if (t.name == "blk.0.ffn_down_exps.weight") {  // one expert short
                t.dims[2] -= 1;
                t.nbytes = t.nbytes / 8 * 7;
            }
            return true;
        },
        kMoeModel);
    EXPECT_THAT(load_error(bytes), HasSubstr("tensor blk.0.ffn_down_exps.weight has shape [7, 64, 32], expected [8, 64, 32]"));
}

// gpt-oss: its required keys and the tensors qwen3moe has not (biases, sinks, its norm's name).
const std::string kGptOssModel = test::golden_path("gpt-oss-mxfp4.gguf");

TEST(LlmBadInput, GptOssMissingKey) {
    for (const std::string key : {"gpt-oss.attention.sliding_window", "gpt-oss.expert_feed_forward_length"}) {
        const auto bytes = edited_model(
            [&](gguf::GgufWriter& w, gguf::TensorInfo&) {
                w.remove(key);
                return true;
            },
            kGptOssModel);
        EXPECT_THAT(load_error(bytes), HasSubstr("missing metadata key '" + key + "'"));
    }
}

TEST(LlmBadInput, GptOssMissingTensor) {
    for (const std::string name : {"blk.0.attn_sinks.weight", "blk.1.attn_q.bias", "blk.0.attn_output.bias",
                                   "blk.1.post_attention_norm.weight", "blk.0.ffn_gate_inp.bias", "blk.1.ffn_up_exps.bias",
                                   "blk.0.ffn_down_exps.bias"}) {
        const auto bytes =
            edited_model([&](gguf::GgufWriter&, gguf::TensorInfo& t) { return t.name != name; }, kGptOssModel);
        EXPECT_THAT(load_error(bytes), HasSubstr("tensor " + name + " is missing"));
    }
}

TEST(LlmBadInput, TokenOutOfRange) {
    const Model model = Model::load(kModel);
    Session session(model, {});
    const std::vector<std::int32_t> tokens = {1, 511};
    EXPECT_THAT(error_of([&] { session.eval(tokens); }), HasSubstr("token id 511 at position 1 is out of range [0, 511)"));
    EXPECT_EQ(session.n_past(), 0);
}

TEST(LlmBadInput, PromptLongerThanContext) {
    const Model model = Model::load(kModel);
    SessionOptions options;
    options.n_ctx = 8;
    Session session(model, options);
    const std::vector<std::int32_t> tokens(9, 1);
    EXPECT_THAT(error_of([&] { session.eval(tokens); }), HasSubstr("the context is full"));
    session.eval(std::span(tokens).first(8));
    EXPECT_THAT(error_of([&] { session.eval(std::span(tokens).first(1)); }), HasSubstr("the context is full"));
}

}  // namespace
}  // namespace forge::llm
