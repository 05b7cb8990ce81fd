// GGUF reader and writer: every metadata type (nested arrays included) survives a round trip,
// files round-trip byte for byte, tensors are zero-copy views of the mapping, and malformed
// input — every truncation, absurd counts, bad offsets — throws a FormatError naming the
// field and byte offset instead of crashing.
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace forge::gguf {
namespace {

std::vector<std::byte> bytes_of(std::initializer_list<float> values) {
    std::vector<std::byte> out(values.size() * sizeof(float));
    std::memcpy(out.data(), values.begin(), out.size());
    return out;
}

// A writer holding one value of every type, a nested array and tensors of three dtypes.
GgufWriter sample_writer() {
    GgufWriter w;
    w.set("general.architecture", "llama");
    w.set("t.u8", std::uint8_t{200});
    w.set("t.i8", std::int8_t{-100});
    w.set("t.u16", std::uint16_t{60000});
    w.set("t.i16", std::int16_t{-30000});
    w.set("t.u32", std::uint32_t{4000000000u});
    w.set("t.i32", std::int32_t{-2000000000});
    w.set("t.f32", 1.5f);
    w.set("t.bool", true);
    w.set("t.string", "hello\nworld");
    w.set("t.u64", std::uint64_t{1} << 63);
    w.set("t.i64", std::int64_t{-1} << 62);
    w.set("t.f64", 2.25);
    w.set("t.array", Array{ValueType::I32, {std::int32_t{1}, std::int32_t{2}, std::int32_t{3}}});
    w.set("t.strings", Array{ValueType::String, {"a", "", "ccc"}});
    w.set("t.empty", Array{ValueType::F32, {}});
    w.set("t.nested", Array{ValueType::Array, {Array{ValueType::U8, {std::uint8_t{1}}},
                                               Array{ValueType::String, {"x"}}}});
    static const auto f32 = bytes_of({1, 2, 3, 4, 5, 6});
    w.add_tensor("a", DType::F32, {3, 2}, f32);
    static const std::vector<std::byte> q8(34 * 2, std::byte{7});
    w.add_tensor("b", DType::Q8_0, {64}, q8);
    static const std::vector<std::byte> f16(2 * 5, std::byte{1});
    w.add_tensor("c", DType::F16, {5, 1, 1}, f16);
    return w;
}

TEST(Gguf, EveryValueTypeRoundTrips) {
    const auto bytes = sample_writer().to_bytes();
    const auto file = GgufFile::parse(bytes, "sample");
    EXPECT_EQ(file.version(), 3u);
    ASSERT_EQ(file.metadata().size(), 17u);
    EXPECT_EQ(*file.find("t.u8")->get_if<std::uint8_t>(), 200);
    EXPECT_EQ(*file.find("t.i16")->get_if<std::int16_t>(), -30000);
    EXPECT_EQ(*file.find("t.u32")->get_if<std::uint32_t>(), 4000000000u);
    EXPECT_EQ(*file.find("t.f32")->get_if<float>(), 1.5f);
    EXPECT_EQ(*file.find("t.bool")->get_if<bool>(), true);
    EXPECT_EQ(*file.find("t.string")->string(), "hello\nworld");
    EXPECT_EQ(*file.find("t.u64")->get_if<std::uint64_t>(), std::uint64_t{1} << 63);
    EXPECT_EQ(file.find("t.u64")->as_int(), std::nullopt);  // does not fit in int64
    EXPECT_EQ(file.find("t.i64")->as_int(), std::int64_t{-1} << 62);
    EXPECT_EQ(*file.find("t.f64")->get_if<double>(), 2.25);
    const Array* nested = file.find("t.nested")->array();
    ASSERT_NE(nested, nullptr);
    EXPECT_EQ(nested->element_type, ValueType::Array);
    EXPECT_EQ(*nested->items[1].array()->items[0].string(), "x");
    EXPECT_EQ(file.find("t.empty")->array()->element_type, ValueType::F32);
    const GgufWriter expected = sample_writer();
    for (std::size_t i = 0; i < file.metadata().size(); ++i) {
        EXPECT_EQ(file.metadata()[i].key, expected.metadata()[i].key);
        EXPECT_TRUE(file.metadata()[i].value == expected.metadata()[i].value) << file.metadata()[i].key;
    }
}

TEST(Gguf, TensorInfosAndAlignment) {
    const auto bytes = sample_writer().to_bytes();
    const auto file = GgufFile::parse(bytes, "sample");
    ASSERT_EQ(file.tensors().size(), 3u);
    const auto& a = file.tensor_info("a");
    EXPECT_EQ(a.dims, (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ(a.shape(), (Shape{2, 3}));
    EXPECT_EQ(a.nbytes, 24u);
    EXPECT_EQ(file.data_offset() % 32, 0u);
    EXPECT_EQ(file.tensor_info("b").offset, 32u);  // 24 bytes padded to 32
    EXPECT_EQ(file.tensor_info("c").offset, 32u + 96u);
    float values[6];
    std::memcpy(values, file.tensor_bytes(a).data(), sizeof values);
    EXPECT_EQ(values[5], 6.0f);
}

TEST(Gguf, CustomAlignmentIsHonoured) {
    GgufWriter w = sample_writer();
    w.set("general.alignment", std::uint32_t{64});
    const auto bytes = w.to_bytes();
    const auto file = GgufFile::parse(bytes, "aligned");
    EXPECT_EQ(file.alignment(), 64u);
    EXPECT_EQ(file.data_offset() % 64, 0u);
    EXPECT_EQ(file.tensor_info("b").offset, 64u);
}

TEST(Gguf, ReadAndWrittenBackIsByteIdentical) {
    const auto original = sample_writer().to_bytes();
    const auto file = GgufFile::parse(original, "sample");
    EXPECT_EQ(GgufWriter::copy_of(file).to_bytes(), original);
    for (const std::uint32_t version : {2u, 3u}) {
        auto bytes = original;
        std::memcpy(bytes.data() + 4, &version, 4);
        const auto v = GgufFile::parse(bytes, "versioned");
        EXPECT_EQ(v.version(), version);
        EXPECT_EQ(GgufWriter::copy_of(v).to_bytes(), bytes);
    }
}

class TempDir {
public:
    TempDir() : path_(std::filesystem::temp_directory_path() / ("forge-gguf-test-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(path_);
    }
    ~TempDir() { std::filesystem::remove_all(path_); }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

TEST(Gguf, FilesRoundTripAndTensorsBorrowTheMapping) {
    TempDir dir;
    sample_writer().write(dir.file("a.gguf"));
    EXPECT_FALSE(std::filesystem::exists(dir.file("a.gguf.tmp")));
    Tensor tensor;
    {
        const auto file = GgufFile::open(dir.file("a.gguf"));
        GgufWriter::copy_of(file).write(dir.file("b.gguf"));
        tensor = file.tensor(file.tensor_info("a"));
        EXPECT_EQ(tensor.raw_data(), file.bytes().data() + file.data_offset());  // zero-copy
        EXPECT_FALSE(tensor.storage()->owned());
    }
    // The file object is gone; the tensor still holds the mapping.
    EXPECT_EQ(tensor.shape(), (Shape{2, 3}));
    EXPECT_EQ(tensor.at({1, 2}), 6.0f);
    std::ifstream a(dir.file("a.gguf"), std::ios::binary), b(dir.file("b.gguf"), std::ios::binary);
    const std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
    EXPECT_EQ(sa, sb);
}

TEST(Gguf, CommittedGgmlWrittenFileRoundTrips) {
    // test/data/gguf/ggml_written.gguf was written by ggml's own gguf_write_to_file
    // (tools/gen_quant_goldens.py), so this checks layout compatibility with ggml's writer.
    const std::string path = std::string(FORGE_TEST_DATA_DIR) + "/gguf/ggml_written.gguf";
    const auto file = GgufFile::open(path);
    EXPECT_GT(file.tensors().size(), 0u);
    const auto bytes = GgufWriter::copy_of(file).to_bytes();
    ASSERT_EQ(bytes.size(), file.bytes().size());
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), file.bytes().begin()));
}

// Expect a FormatError whose message mentions `needle`.
void expect_format_error(std::span<const std::byte> bytes, const std::string& needle) {
    try {
        GgufFile::parse(bytes, "bad");
        ADD_FAILURE() << "parsed, expected an error mentioning '" << needle << "'";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(Gguf, EveryTruncationIsACleanError) {
    const auto bytes = sample_writer().to_bytes();
    const auto file = GgufFile::parse(bytes, "sample");
    // Cutting anywhere before the end of the last tensor's data must fail cleanly.
    const std::size_t needed = file.data_offset() + file.tensor_info("c").offset + file.tensor_info("c").nbytes;
    for (std::size_t n = 0; n < needed; ++n) {
        EXPECT_THROW(GgufFile::parse(std::span(bytes).first(n), "cut"), FormatError) << "prefix " << n;
    }
    expect_format_error(std::span(bytes).first(10), "tensor count at byte 8");
}

template <typename T>
void poke(std::vector<std::byte>& bytes, std::size_t at, T value) {
    std::memcpy(bytes.data() + at, &value, sizeof value);
}

TEST(Gguf, MalformedHeadersNameFieldAndOffset) {
    const auto good = sample_writer().to_bytes();
    auto bytes = good;
    bytes[0] = std::byte{'X'};
    expect_format_error(bytes, "magic at byte 0");
    bytes = good;
    poke<std::uint32_t>(bytes, 4, 1);
    expect_format_error(bytes, "v1 is not supported");
    poke<std::uint32_t>(bytes, 4, 0x03000000u);
    expect_format_error(bytes, "big-endian");
    bytes = good;
    poke<std::uint64_t>(bytes, 8, ~0ull);
    expect_format_error(bytes, "tensor count at byte 8");
    bytes = good;
    poke<std::uint64_t>(bytes, 16, 1ull << 60);
    expect_format_error(bytes, "metadata count at byte 16");
    bytes = good;
    poke<std::uint64_t>(bytes, 24, 1ull << 62);  // first key's length
    expect_format_error(bytes, "key of metadata entry 0 at byte 24");
}

// Byte offset of the first occurrence of `text` in `bytes`.
std::size_t find(const std::vector<std::byte>& bytes, std::string_view text) {
    const auto* begin = reinterpret_cast<const char*>(bytes.data());
    const std::string_view all(begin, bytes.size());
    const auto at = all.find(text);
    EXPECT_NE(at, std::string_view::npos);
    return at;
}

TEST(Gguf, MalformedValuesAndTensorsAreRejected) {
    const auto good = sample_writer().to_bytes();
    auto bytes = good;
    const std::size_t u8_type = find(bytes, "t.u8") + 4;
    poke<std::uint32_t>(bytes, u8_type, 13);
    expect_format_error(bytes, "unknown value type 13");
    bytes = good;
    const std::size_t bool_value = find(bytes, "t.bool") + 6 + 4;
    poke<std::uint8_t>(bytes, bool_value, 2);
    expect_format_error(bytes, "bool byte is 2");
    bytes = good;
    const std::size_t array_count = find(bytes, "t.array") + 7 + 4 + 4;
    poke<std::uint64_t>(bytes, array_count, 1ull << 40);
    expect_format_error(bytes, fmt::format("metadata 't.array' at byte {}", array_count));
    bytes = good;
    // Tensor "a": u64 name length 1, "a", u32 rank 2 (unique: the string "a" above has no rank).
    const std::size_t name_a = find(bytes, std::string_view("\x01\0\0\0\0\0\0\0a\x02\0\0\0", 13)) + 9;
    poke<std::uint32_t>(bytes, name_a, 5);  // rank 5
    expect_format_error(bytes, "tensor 'a' rank");
    bytes = good;
    poke<std::uint32_t>(bytes, name_a + 4 + 16, 4);  // ggml type 4 (Q4_2) is gone
    expect_format_error(bytes, "unknown ggml type 4");
    bytes = good;
    poke<std::uint32_t>(bytes, name_a + 4 + 16, 8);  // Q8_0 with 3 elements per row
    expect_format_error(bytes, "not a multiple of the q8_0 block size");
    bytes = good;
    poke<std::uint64_t>(bytes, name_a + 4 + 16 + 4, 33);  // misaligned offset
    expect_format_error(bytes, "not a multiple of the alignment");
    bytes = good;
    poke<std::uint64_t>(bytes, name_a + 4 + 16 + 4, 1ull << 40);
    expect_format_error(bytes, "tensor 'a' data");
    bytes = good;
    poke<std::uint64_t>(bytes, name_a + 4, 1ull << 62);  // dims overflow
    poke<std::uint64_t>(bytes, name_a + 12, 1ull << 62);
    expect_format_error(bytes, "overflows");
}

TEST(Gguf, DuplicatesAndBadAlignmentAreRejected) {
    GgufWriter w;
    w.set("general.alignment", std::uint32_t{32});
    w.set("k1", std::uint8_t{1});
    w.set("k2", std::uint8_t{2});
    const auto good = w.to_bytes();
    auto bytes = good;
    poke<std::uint32_t>(bytes, find(bytes, "general.alignment") + 17 + 4, 48);
    expect_format_error(bytes, "48 is not a power of two");
    bytes = good;
    poke<std::uint32_t>(bytes, find(bytes, "general.alignment") + 17, 5);  // an i32, not a u32
    expect_format_error(bytes, "expected u32");
    bytes = good;
    bytes[find(bytes, "k2") + 1] = std::byte{'1'};
    expect_format_error(bytes, "duplicate key 'k1'");
}

}  // namespace
}  // namespace forge::gguf
