// The LoRA adapter file (models/llm/lora/lora_adapter.h): a file written by the oracle kit's
// make_lora.py (test/data/llm/lora/, tools/llm_goldens/lora.py) read in forge's orientation,
// its f16 copy widened, write/read round trips, and bad files rejected with the file and the
// tensor or key named.
#include "models/llm/lora/lora_adapter.h"

#include "core/error.h"
#include "core/gguf/gguf_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace forge::llm::lora {
namespace {

using ::testing::HasSubstr;

std::string lora_golden(const std::string& file) { return std::string(FORGE_LLM_TEST_DATA) + "/lora/" + file; }

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("forge_lora_" + name + ".gguf")).string();
}

TEST(LoraAdapter, ReadsMakeLoraFileInForgeOrientation) {
    const LoraAdapter adapter = read_lora_adapter(lora_golden("llama-f32.lora-a.gguf"));
    EXPECT_EQ(adapter.architecture, "llama");
    EXPECT_EQ(adapter.alpha, 8.0f);
    EXPECT_EQ(adapter.weights.size(), 14u);  // 2 layers x q, k, v, o, gate, up, down
    EXPECT_FLOAT_EQ(adapter.alpha_over_rank(), 2.0f);
    const LowRankPair& k = adapter.weights.at("blk.0.attn_k.weight");
    EXPECT_EQ(k.a.shape(), (Shape{4, 64}));  // GGUF ne [64, 4]
    EXPECT_EQ(k.b.shape(), (Shape{32, 4}));  // 2 kv heads of 16
    // Values numpy read from the file (ne[0] innermost): A[2, 17] and B[5, 3], B[0, 0] of ffn_down.
    EXPECT_EQ(k.a.at({2, 17}), 0.0059518656f);
    const LowRankPair& down = adapter.weights.at("blk.1.ffn_down.weight");
    EXPECT_EQ(down.b.shape(), (Shape{64, 4}));
    EXPECT_EQ(down.b.at({5, 3}), -0.0025208392f);
    EXPECT_EQ(down.b.at({0, 0}), 0.054735146f);
}

TEST(LoraAdapter, WidensF16Factors) {
    const LoraAdapter f32 = read_lora_adapter(lora_golden("llama-f32.lora-a.gguf"));
    const LoraAdapter f16 = read_lora_adapter(lora_golden("llama-f32.lora-a.f16.gguf"));
    ASSERT_EQ(f16.weights.size(), f32.weights.size());
    for (const auto& [name, pair] : f32.weights) {
        const LowRankPair& half = f16.weights.at(name);
        EXPECT_EQ(half.a.dtype(), DType::F32);
        EXPECT_EQ(half.a.to_vector(), pair.a.to(DType::F16).to_vector()) << name;
        EXPECT_EQ(half.b.to_vector(), pair.b.to(DType::F16).to_vector()) << name;
    }
}

TEST(LoraAdapter, WriteThenReadGivesTheSameAdapter) {
    const LoraAdapter original = read_lora_adapter(lora_golden("llama-f32.lora-a.gguf"));
    const std::string path = temp_path("round_trip");
    write_lora_adapter(original, path);
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    const LoraAdapter back = read_lora_adapter(path);
    EXPECT_EQ(back.architecture, original.architecture);
    EXPECT_EQ(back.alpha, original.alpha);
    ASSERT_EQ(back.weights.size(), original.weights.size());
    for (const auto& [name, pair] : original.weights) {
        EXPECT_EQ(back.weights.at(name).a.to_vector(), pair.a.to_vector()) << name;
        EXPECT_EQ(back.weights.at(name).b.to_vector(), pair.b.to_vector()) << name;
    }
    // Tensors come layer by layer, blk.2 before blk.10.
    LoraAdapter layered;
    layered.architecture = "qwen3";
    layered.alpha = 4.0f;
    for (const char* name : {"blk.10.attn_q.weight", "blk.2.attn_q.weight"}) {
        layered.weights[name] = {Tensor::full(Shape{2, 3}, 0.5f), Tensor::full(Shape{5, 2}, -1.0f)};
    }
    write_lora_adapter(layered, path);
    const gguf::GgufFile file = gguf::GgufFile::open(path);
    ASSERT_EQ(file.tensors().size(), 4u);
    EXPECT_EQ(file.tensors()[0].name, "blk.2.attn_q.weight.lora_a");
    EXPECT_EQ(file.tensors()[0].dims, (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ(file.tensors()[1].dims, (std::vector<std::int64_t>{2, 5}));
    EXPECT_EQ(file.tensors()[3].name, "blk.10.attn_q.weight.lora_b");
    std::filesystem::remove(path);
}

// A valid one-pair adapter file, changed by `edit` before it is written.
std::string adapter_file(const std::string& name, const std::function<void(gguf::GgufWriter&)>& edit) {
    static const std::vector<float> values(64, 0.25f);
    const std::span<const std::byte> bytes = std::as_bytes(std::span(values));
    gguf::GgufWriter writer;
    writer.set("general.architecture", "llama");
    writer.set("general.type", "adapter");
    writer.set("adapter.type", "lora");
    writer.set("adapter.lora.alpha", 8.0f);
    writer.add_tensor("blk.0.attn_q.weight.lora_a", DType::F32, {8, 4}, bytes.first(32 * 4));
    edit(writer);
    const std::string path = temp_path(name);
    writer.write(path);
    return path;
}

void expect_rejected(const std::string& path, const std::string& what) {
    try {
        read_lora_adapter(path);
        ADD_FAILURE() << path << " was accepted";
    } catch (const FormatError& e) {
        EXPECT_THAT(e.what(), HasSubstr(path));
        EXPECT_THAT(e.what(), HasSubstr(what));
    }
    std::filesystem::remove(path);
}

TEST(LoraAdapter, RejectsAModelFile) {
    try {
        read_lora_adapter(std::string(FORGE_LLM_TEST_DATA) + "/llama-f32.gguf");
        ADD_FAILURE() << "a model was read as an adapter";
    } catch (const FormatError& e) {
        EXPECT_THAT(e.what(), HasSubstr("llama-f32.gguf"));
        EXPECT_THAT(e.what(), HasSubstr("general.type"));
    }
}

TEST(LoraAdapter, RejectsAnotherAdapterType) {
    expect_rejected(adapter_file("control", [](gguf::GgufWriter& w) { w.set("adapter.type", "control_vector"); }),
                    "adapter.type");
}

TEST(LoraAdapter, RejectsALoraAWithoutItsLoraB) {
    expect_rejected(adapter_file("no_b", [](gguf::GgufWriter&) {}), "blk.0.attn_q.weight.lora_a has no blk.0.attn_q.weight.lora_b");
}

TEST(LoraAdapter, RejectsFactorsWhoseRanksDisagree) {
    static const std::vector<float> b(8 * 3, 0.5f);
    expect_rejected(adapter_file("rank", [](gguf::GgufWriter& w) {
                        w.add_tensor("blk.0.attn_q.weight.lora_b", DType::F32, {3, 8}, std::as_bytes(std::span(b)));
                    }),
                    "ranks");
}

TEST(LoraAdapter, RejectsPairsOfDifferentRanks) {
    static const std::vector<float> v(64, 0.5f);
    expect_rejected(adapter_file("two_ranks", [](gguf::GgufWriter& w) {
                        const auto bytes = std::as_bytes(std::span(v));
                        w.add_tensor("blk.0.attn_q.weight.lora_b", DType::F32, {4, 8}, bytes.first(32 * 4));
                        w.add_tensor("blk.0.attn_k.weight.lora_a", DType::F32, {8, 2}, bytes.first(16 * 4));
                        w.add_tensor("blk.0.attn_k.weight.lora_b", DType::F32, {2, 8}, bytes.first(16 * 4));
                    }),
                    "has rank 4 but other pairs have rank 2");
}

TEST(LoraAdapter, RejectsATensorThatIsNoFactor) {
    static const std::vector<float> v(8, 1.0f);
    expect_rejected(adapter_file("extra", [](gguf::GgufWriter& w) {
                        w.add_tensor("blk.0.attn_norm.weight", DType::F32, {8}, std::as_bytes(std::span(v)));
                    }),
                    "blk.0.attn_norm.weight is neither");
}

TEST(LoraAdapter, RejectsQuantizedFactors) {
    static const std::vector<std::byte> block(34 * 4);
    expect_rejected(adapter_file("q8", [](gguf::GgufWriter& w) {
                        w.add_tensor("blk.0.attn_q.weight.lora_b", DType::Q8_0, {32, 4}, std::span(block));
                    }),
                    "blk.0.attn_q.weight.lora_b has dtype q8_0");
}

TEST(LoraAdapter, RejectsAMissingFile) {
    EXPECT_THROW(read_lora_adapter(temp_path("does_not_exist")), Error);
}

}  // namespace
}  // namespace forge::llm::lora
