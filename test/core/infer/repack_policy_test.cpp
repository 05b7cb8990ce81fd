// When a model's matrices are copied into the interleaved layout: always for a small file, never
// for a mapped file larger than half the machine's memory (issue 27: such a file loads through
// mmap without copying). The large file is sparse, so the test costs no disk and no reading.
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "core/infer/interleaved_weights.h"
#include "core/quant/quantize.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

namespace forge::infer {
namespace {

// One Q8_0 matrix [16, 64] (a format the simd build interleaves) in a GGUF file at `path`,
// grown with a hole to `size` bytes when size is given.
void write_model_file(const std::string& path, std::uintmax_t size = 0) {
    Tensor w = Tensor::empty({16, 64});
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 0.1f);
    for (float& v : w.span<float>()) v = normal(rng);
    const Tensor q = quant::quantize(w, DType::Q8_0);
    gguf::GgufWriter writer;
    writer.set("general.architecture", "llama");
    writer.add_tensor("blk.0.ffn_down.weight", DType::Q8_0, {64, 16}, std::span<const std::byte>(q.raw_data(), q.nbytes()));
    writer.write(path);
    if (size > 0) std::filesystem::resize_file(path, size);
}

TEST(RepackPolicy, SmallFilesAreRepackedWhereTheBuildInterleaves) {
    const std::string path = testing::TempDir() + "repack_small.gguf";
    write_model_file(path);
    const gguf::GgufFile file = gguf::GgufFile::open(path);
    EXPECT_TRUE(InterleavedWeights::repacks(file));
    const Tensor w = file.tensor(file.tensor_info("blk.0.ffn_down.weight"));
    // The same answer as from(): a copy where the build has a Q8_0 interleaved kernel.
    EXPECT_EQ(InterleavedWeights::for_file(w, file) != nullptr, InterleavedWeights::from(w, false) != nullptr);
    std::filesystem::remove(path);
}

TEST(RepackPolicy, FilesOverHalfTheMemoryStayInTheMapping) {
    const std::string path = testing::TempDir() + "repack_large.gguf";
    write_model_file(path, InterleavedWeights::repack_limit_bytes() + 4096);
    const gguf::GgufFile file = gguf::GgufFile::open(path);
    EXPECT_FALSE(InterleavedWeights::repacks(file));
    const Tensor w = file.tensor(file.tensor_info("blk.0.ffn_down.weight"));
    EXPECT_EQ(InterleavedWeights::for_file(w, file), nullptr);
    std::filesystem::remove(path);
}

TEST(RepackPolicy, ParsedBytesAreAlwaysRepackable) {
    // Bytes someone else holds (not a mapping) have no page cache to fall back on.
    gguf::GgufWriter writer;
    writer.set("general.architecture", "llama");
    const std::vector<std::byte> bytes = writer.to_bytes();
    EXPECT_TRUE(InterleavedWeights::repacks(gguf::GgufFile::parse(bytes, "memory")));
}

}  // namespace
}  // namespace forge::infer
