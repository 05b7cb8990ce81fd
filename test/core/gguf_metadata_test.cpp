// gguf::Metadata, the one typed reader of GGUF metadata: a missing key, a wrong type, a value
// out of range each throw a FormatError naming the file and the key (a wrong type also names
// the expected and the found type); an absent key with a default gives the default.
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "core/gguf/metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>

namespace forge::gguf {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class GgufMetadata : public ::testing::Test {
protected:
    GgufMetadata() {
        GgufWriter w;
        w.set("n.count", std::uint32_t{12});
        w.set("n.negative", std::int64_t{-3});
        w.set("n.huge", std::uint64_t{1} << 63);  // beyond i64: not a count
        w.set("n.eps", 1e-5f);
        w.set("n.nan", std::nanf(""));
        w.set("n.flag", true);
        w.set("n.name", "llama");
        w.set("n.words", Array{ValueType::String, {"a", "b"}});
        w.set("n.ids", Array{ValueType::I32, {std::int32_t{1}}});
        w.set("n.empty", Array{ValueType::F32, {}});
        bytes_ = w.to_bytes();
        file_ = std::make_unique<GgufFile>(GgufFile::parse(bytes_, "model.gguf"));
    }

    Metadata meta() const { return Metadata(*file_); }

    // The FormatError that `read` throws; a test failure if it throws none.
    static std::string error_of(const std::function<void()>& read) {
        try {
            read();
        } catch (const FormatError& e) {
            return e.what();
        }
        ADD_FAILURE() << "no FormatError";
        return {};
    }

private:
    std::vector<std::byte> bytes_;
    std::unique_ptr<GgufFile> file_;
};

TEST_F(GgufMetadata, ReadsEachType) {
    EXPECT_EQ(meta().integer("n.count"), 12);
    EXPECT_EQ(meta().integer("n.negative"), -3);
    EXPECT_FLOAT_EQ(static_cast<float>(meta().number("n.eps")), 1e-5f);
    EXPECT_EQ(meta().number("n.count"), 12.0);  // an integer is a number
    EXPECT_TRUE(meta().boolean("n.flag"));
    EXPECT_EQ(meta().string("n.name"), "llama");
    EXPECT_EQ(meta().array("n.words", ValueType::String).items.size(), 2u);
    EXPECT_TRUE(meta().array("n.empty", ValueType::String).items.empty());  // empty: any element type
}

TEST_F(GgufMetadata, MissingKeyNamesFileAndKey) {
    EXPECT_EQ(error_of([&] { meta().integer("n.absent"); }), "model.gguf: missing metadata key 'n.absent'");
    EXPECT_THAT(error_of([&] { meta().string("n.absent"); }), HasSubstr("'n.absent'"));
    EXPECT_THAT(error_of([&] { meta().array("n.absent", ValueType::I32); }), HasSubstr("'n.absent'"));
}

TEST_F(GgufMetadata, WrongTypeNamesExpectedAndFound) {
    EXPECT_EQ(error_of([&] { meta().integer("n.name"); }),
              "model.gguf: metadata 'n.name' must be an integer, found string \"llama\"");
    EXPECT_THAT(error_of([&] { meta().integer("n.eps"); }), HasSubstr("must be an integer, found f32"));
    EXPECT_THAT(error_of([&] { meta().integer("n.flag"); }), HasSubstr("must be an integer, found bool"));
    EXPECT_THAT(error_of([&] { meta().integer("n.huge"); }), HasSubstr("must be an integer, found u64"));
    EXPECT_THAT(error_of([&] { meta().number("n.name"); }), HasSubstr("must be a number, found string"));
    EXPECT_THAT(error_of([&] { meta().boolean("n.count"); }), HasSubstr("must be a bool, found u32 12"));
    EXPECT_THAT(error_of([&] { meta().string("n.count"); }), HasSubstr("'n.count' must be a string, found u32"));
    EXPECT_THAT(error_of([&] { meta().array("n.ids", ValueType::String); }),
                AllOf(HasSubstr("model.gguf"), HasSubstr("'n.ids' must be array[string], found array[i32]")));
    EXPECT_THAT(error_of([&] { meta().array("n.name", ValueType::String); }),
                HasSubstr("must be array[string], found string"));
}

TEST_F(GgufMetadata, OutOfRangeNamesTheRange) {
    EXPECT_EQ(meta().integer("n.count", {12, 12}), 12);
    EXPECT_EQ(error_of([&] { meta().integer("n.count", {1, 8}); }), "model.gguf: metadata 'n.count' = 12 must be in [1, 8]");
    EXPECT_THAT(error_of([&] { meta().integer("n.negative", Range<std::int64_t>::at_least(1)); }),
                HasSubstr("'n.negative' = -3 must be at least 1"));
    EXPECT_THAT(error_of([&] { meta().number("n.eps", {0.5, 1.0}); }), HasSubstr("'n.eps'"));
    // NaN is outside every range, the default one included.
    EXPECT_THAT(error_of([&] { meta().number("n.nan"); }), HasSubstr("'n.nan' = nan must be finite"));
}

TEST_F(GgufMetadata, DefaultOnlyWhenAbsent) {
    EXPECT_EQ(meta().integer_or("n.absent", 7), 7);
    EXPECT_EQ(meta().integer_or("n.count", 7), 12);
    EXPECT_EQ(meta().number_or("n.absent", 0.25), 0.25);
    EXPECT_FALSE(meta().boolean_or("n.absent", false));
    EXPECT_EQ(meta().string_or("n.absent", "gpt2"), "gpt2");
    // A default never hides a present key of the wrong type or out of range.
    EXPECT_THAT(error_of([&] { meta().integer_or("n.name", 7); }), HasSubstr("must be an integer"));
    EXPECT_THAT(error_of([&] { meta().integer_or("n.count", 7, {0, 4}); }), HasSubstr("'n.count' = 12"));
    EXPECT_THAT(error_of([&] { meta().string_or("n.flag", "x"); }), HasSubstr("must be a string, found bool"));
}

}  // namespace
}  // namespace forge::gguf
