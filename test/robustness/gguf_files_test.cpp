// GGUF files with very many entries: `forge quantize` of a file of 200 000 tiny tensors took
// over a minute (40 000: 2.6 s, 80 000: 13.8 s), because the writer compared each tensor it
// added with every earlier one's name (and quantize's set() of each metadata key with every
// earlier key). The writer now keeps the names in hash tables, so n entries cost O(n); this
// test times the writer itself, where the quadratic step was, with entries enough that the
// old scan takes seconds.
#include "core/dtype.h"
#include "core/error.h"
#include "core/gguf/gguf_writer.h"
#include "test/robustness/hostile.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace forge::test {
namespace {

using ::testing::HasSubstr;

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(GgufHostile, ManyTensorsAndKeysAreAddedInLinearTime) {
    constexpr int kCount = 100'000;
    const float one = 1.0f;
    const auto bytes = std::as_bytes(std::span(&one, 1));
    gguf::GgufWriter writer;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCount; ++i) {
        writer.set(fmt::format("key.{:06}", i), gguf::Value(static_cast<std::uint32_t>(i)));
        writer.add_tensor(fmt::format("t.{:06}", i), DType::F32, {1}, bytes);
    }
    // Measured on a loaded 2-core machine (simd build): about 0.5 s; the scans took 22 s.
    EXPECT_LT(seconds_since(start), 5.0) << "s to add " << kCount << " tensors and keys";

    // What the tables stand for still holds: names stay unique, a key set again keeps its
    // place, a key removed shifts the later ones.
    try {
        writer.add_tensor("t.000007", DType::F32, {1}, bytes);
        ADD_FAILURE() << "a duplicate tensor was added";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("duplicate tensor 't.000007'"));
    }
    writer.set("key.000005", gguf::Value(std::uint32_t{7}));
    writer.remove("key.000000");
    writer.remove("no.such.key");
    ASSERT_EQ(writer.metadata().size(), static_cast<std::size_t>(kCount - 1));
    EXPECT_EQ(writer.metadata()[0].key, "key.000001");
    EXPECT_EQ(writer.metadata()[4].key, "key.000005");
    EXPECT_EQ(*writer.metadata()[4].value.get_if<std::uint32_t>(), 7u);
    writer.set("key.000000", gguf::Value(std::uint32_t{0}));  // back, at the end
    EXPECT_EQ(writer.metadata().back().key, "key.000000");
    writer.set("key.000006", gguf::Value(std::uint32_t{8}));  // an index past the removed one
    EXPECT_EQ(*writer.metadata()[5].value.get_if<std::uint32_t>(), 8u);
}

// `forge gguf info` and `forge quantize` print a tensor's shape the same way, in ggml's order
// (ne[0], the row length, first) as llama.cpp's tools do, and quantize's warning and summary
// both speak of columns: rows of 320 columns cannot take Q4_K's 256-wide blocks.
TEST(GgufShapes, InfoAndQuantizeAgreeOnOrderAndWords) {
    const std::vector<float> weights(320 * 2, 0.5f);
    gguf::GgufWriter writer;
    writer.set("general.architecture", "llama");
    writer.add_tensor("blk.0.ffn_up.weight", DType::F32, {320, 2}, std::as_bytes(std::span(weights)));
    const fs::path path = scratch_dir() / "shapes.gguf";
    writer.write(path.string());

    const BoundedRun info = run_bounded("gguf info " + quoted(path));
    EXPECT_EQ(info.run.status, 0) << info.run.err;
    EXPECT_THAT(info.run.out, HasSubstr("shape (ne0 first)"));
    EXPECT_THAT(info.run.out, HasSubstr("[320, 2]"));

    const BoundedRun q =
        run_bounded("quantize " + quoted(path) + " " + quoted(scratch_dir() / "shapes_q.gguf") + " Q4_K_M --pure");
    EXPECT_EQ(q.run.status, 0) << q.run.err;
    EXPECT_THAT(q.run.err, HasSubstr("[320, 2]"));
    EXPECT_THAT(q.run.err, HasSubstr("320 columns are not a multiple of the"));
    EXPECT_THAT(q.run.err, HasSubstr("1 tensors fell back to another type (columns not a multiple of the type's block size)"));
}

}  // namespace
}  // namespace forge::test
