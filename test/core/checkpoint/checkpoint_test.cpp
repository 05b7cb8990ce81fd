// Checkpoints: safetensors round trip and layout, atomic writes, and bit-exact resume
// (N + M steps straight equal N steps, save, load into fresh objects, M more).
#include "core/autograd/ag.h"
#include "core/checkpoint/checkpoint.h"
#include "core/optim/adam.h"
#include "core/random/random_tensor.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace forge::checkpoint {
namespace {

std::filesystem::path scratch(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / "forge_checkpoint_test";
    std::filesystem::create_directories(dir);
    return dir / name;
}

TEST(Safetensors, RoundTripKeepsEveryByte) {
    const TensorMap tensors = {{"a", random::normal_tensor({3, 5}, 1)},
                               {"b", Tensor::arange(7).to(DType::I64)},
                               {"c", random::normal_tensor({4}, 2).to(DType::F16)}};
    const auto path = scratch("round_trip.safetensors");
    write_safetensors(path, tensors, {{"note", "hello"}});
    Metadata metadata;
    const TensorMap back = read_safetensors(path, &metadata);
    EXPECT_EQ(metadata.at("note"), "hello");
    ASSERT_EQ(back.size(), 3u);
    for (const auto& [name, t] : tensors) {
        ASSERT_TRUE(back.at(name).shape() == t.shape()) << name;
        EXPECT_EQ(std::memcmp(back.at(name).raw_data(), t.raw_data(), t.nbytes()), 0) << name;
    }
    EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
}

TEST(Safetensors, LayoutIsTheStandardOne) {
    const auto path = scratch("layout.safetensors");
    write_safetensors(path, {{"w", Tensor::from({1.0f, 2.0f}, {2})}});
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[static_cast<std::size_t>(i)];
    EXPECT_EQ(n % 8, 0u);
    const auto header = nlohmann::json::parse(std::string(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n)));
    EXPECT_EQ(header["w"]["dtype"], "F32");
    EXPECT_EQ(header["w"]["data_offsets"], nlohmann::json::array({0, 8}));
    float values[2];
    std::memcpy(values, bytes.data() + 8 + n, 8);
    EXPECT_EQ(values[1], 2.0f);
}

TEST(Safetensors, TruncatedFileIsAFormatError) {
    const auto path = scratch("truncated.safetensors");
    write_safetensors(path, {{"w", Tensor::zeros({16})}});
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 4);
    EXPECT_THROW(read_safetensors(path), FormatError);
}

// A small regression model trained with AdamW on a fixed batch.
struct TrainingRun {
    Tensor w = ag::requires_grad(random::normal_tensor({4, 3}, 10));
    Tensor b = ag::requires_grad(random::normal_tensor({4}, 11));
    optim::Adam adam{{w, b}, optim::adamw_options(1e-2f)};

    void steps(std::int64_t count) {
        const Tensor x = random::normal_tensor({8, 3}, 12), y = random::normal_tensor({8, 4}, 13);
        for (std::int64_t i = 0; i < count; ++i) {
            adam.zero_grad();
            ag::backward(ag::mse(ag::linear(x, w, b), y));
            adam.step();
        }
    }
    TensorMap params() const { return {{"w", w}, {"b", b}}; }
};

TEST(Checkpoint, ResumeIsBitExact) {
    TrainingRun straight;
    straight.steps(7);

    const auto base = scratch("resume");
    {
        TrainingRun first;
        first.steps(4);
        save_checkpoint(base, {first.params(), first.adam.state(), 4, 99});
    }
    TrainingRun resumed;  // fresh parameters and optimizer, then the checkpoint poured in
    const Checkpoint loaded = load_checkpoint(base);
    EXPECT_EQ(loaded.step, 4);
    EXPECT_EQ(loaded.seed, 99u);
    restore_params(loaded.params, resumed.params());
    resumed.adam.load_state(loaded.optimizer);
    resumed.steps(3);

    for (const char* name : {"w", "b"}) {
        const Tensor a = straight.params().at(name), b = resumed.params().at(name);
        EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()), 0) << name;
    }
}

TEST(Checkpoint, MissingCheckpointIsAClearError) {
    EXPECT_THROW(load_checkpoint(scratch("does_not_exist")), Error);
}

}  // namespace
}  // namespace forge::checkpoint
