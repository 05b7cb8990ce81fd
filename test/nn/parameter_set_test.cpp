// The parameter registry: initialisation by (seed, name), state dicts and their round trips
// through safetensors and GGUF.
#include "core/autograd/variable.h"
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "nn/parameter_set.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace forge::nn {
namespace {

TEST(ParameterSet, InitDependsOnSeedNameAndShapeOnly) {
    ParameterSet a(7), b(7), c(8);
    a.add("first", Shape{3}, Init::normal(1.0f));
    const Tensor wa = a.add("w", Shape{4, 5}, Init::uniform(0.5f));
    const Tensor wb = b.add("w", Shape{4, 5}, Init::uniform(0.5f));  // no "first" before it
    const Tensor wc = c.add("w", Shape{4, 5}, Init::uniform(0.5f));
    EXPECT_EQ(wa.to_vector(), wb.to_vector());
    EXPECT_NE(wa.to_vector(), wc.to_vector());
    for (const float v : wa.to_vector()) EXPECT_LE(std::fabs(v), 0.5f);
    EXPECT_NE(a.at("first").to_vector(), std::vector<float>(3, 0.0f));
}

TEST(ParameterSet, TrainableParametersAreLeavesFrozenOnesAreNot) {
    ParameterSet p;
    const Tensor w = p.add("w", Shape{2}, Init::ones());
    const Tensor f = p.add("frozen", Shape{2}, Init::zeros(), /*trainable=*/false);
    EXPECT_TRUE(ag::requires_grad_of(w));
    EXPECT_FALSE(ag::requires_grad_of(f));
    ASSERT_EQ(p.trainable().size(), 1u);
    EXPECT_EQ(p.numel(), 4);
    EXPECT_THROW(p.add("w", Shape{2}, Init::ones()), Error);
    EXPECT_THROW(p.at("missing"), Error);
}

TEST(ParameterSet, SafetensorsRoundTripRestoresInPlace) {
    const auto path = std::filesystem::temp_directory_path() / "forge_nn_params.safetensors";
    ParameterSet saved(1);
    saved.add("blk.0.attn_q.weight", Shape{3, 2}, Init::normal(1.0f));
    saved.add("norm.weight", Shape{2}, Init::ones());
    saved.save_safetensors(path);

    ParameterSet loaded(2);
    const Tensor q = loaded.add("blk.0.attn_q.weight", Shape{3, 2}, Init::zeros());
    loaded.add("norm.weight", Shape{2}, Init::zeros());
    loaded.load_safetensors(path);
    EXPECT_EQ(q.to_vector(), saved.at("blk.0.attn_q.weight").to_vector());  // the same handle sees it

    ParameterSet wrong;
    wrong.add("blk.0.attn_q.weight", Shape{2, 3}, Init::zeros());
    wrong.add("norm.weight", Shape{2}, Init::zeros());
    EXPECT_THROW(wrong.load_safetensors(path), Error);  // shape
    ParameterSet missing;
    missing.add("norm.weight", Shape{2}, Init::zeros());
    EXPECT_THROW(missing.load_safetensors(path), Error);  // an extra entry in the file
    std::filesystem::remove(path);
}

TEST(ParameterSet, GgufTensorsUseGgufDimOrder) {
    ParameterSet p(3);
    p.add("w", Shape{3, 5}, Init::normal(1.0f));
    gguf::GgufWriter writer;
    p.add_to_gguf(writer);
    const auto bytes = writer.to_bytes();
    const auto file = gguf::GgufFile::parse(bytes, "memory");
    const auto& info = file.tensor_info("w");
    EXPECT_EQ(info.dims, (std::vector<std::int64_t>{5, 3}));

    ParameterSet back(4);
    const Tensor w = back.add("w", Shape{3, 5}, Init::zeros());
    back.load_gguf(file);
    EXPECT_EQ(w.to_vector(), p.at("w").to_vector());
}

}  // namespace
}  // namespace forge::nn
