// forge's GGUF reader against ggml's own (test/data/gguf/ggml_view.json, written by
// tools/make_gguf_ggml_golden.py with gguf_init_from_file and ggml's to_float): on a file ggml
// wrote, every metadata value and every tensor value as ggml reads it; on files `forge
// quantize` wrote, the names, types, shapes and decoded values ggml reads are the ones forge
// reads (so ggml reads what forge meant to write).
#include "core/gguf/gguf_file.h"
#include "core/quant/quantize.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace forge::gguf {
namespace {

using nlohmann::json;

const json& golden() {
    static const json doc = [] {
        std::ifstream in(std::string(FORGE_TEST_DATA_DIR) + "/gguf/ggml_view.json");
        if (!in) throw std::runtime_error("missing test/data/gguf/ggml_view.json");
        return json::parse(in);
    }();
    return doc;
}

// The same 64-bit FNV-1a the golden script applies to the f32 bit patterns.
std::string fnv1a64(std::span<const std::uint32_t> bits) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const std::uint32_t word : bits) {
        for (int byte = 0; byte < 4; ++byte) h = (h ^ ((word >> (8 * byte)) & 0xFF)) * 0x100000001b3ull;
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

std::vector<std::uint32_t> decoded_bits(const GgufFile& file, const TensorInfo& info) {
    std::vector<float> values(static_cast<std::size_t>(info.numel()));
    const auto bytes = file.tensor_bytes(info);
    if (info.dtype == DType::F32) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    else quant::dequantize_bytes(info.dtype, bytes, values);
    std::vector<std::uint32_t> bits(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) bits[i] = std::bit_cast<std::uint32_t>(values[i]);
    return bits;
}

// One metadata value as ggml read it: scalar, string, or array (element type, length, items).
void expect_same_value(const Value& ours, const json& theirs, const std::string& key) {
    const auto& v = theirs.at("value");
    if (const std::string* text = ours.string()) {
        EXPECT_EQ(*text, v.get<std::string>()) << key;
    } else if (const Array* array = ours.array()) {
        EXPECT_EQ(static_cast<int>(array->element_type), v.at("element_type").get<int>()) << key;
        ASSERT_EQ(array->items.size(), v.at("n").get<std::size_t>()) << key;
        if (!v.contains("items")) return;
        for (std::size_t i = 0; i < array->items.size(); ++i) {
            const json item_doc = {{"value", v.at("items").at(i)}};
            expect_same_value(array->items[i], item_doc, key + "[" + std::to_string(i) + "]");
        }
    } else if (v.is_boolean()) {
        EXPECT_EQ(ours.as_int(), std::optional<std::int64_t>(v.get<bool>() ? 1 : 0)) << key;
    } else if (v.is_number_float()) {
        EXPECT_EQ(ours.as_double(), std::optional<double>(v.get<double>())) << key;
    } else if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t{INT64_MAX}) {
        ASSERT_NE(ours.get_if<std::uint64_t>(), nullptr) << key;
        EXPECT_EQ(*ours.get_if<std::uint64_t>(), v.get<std::uint64_t>()) << key;
    } else {
        EXPECT_EQ(ours.as_int(), std::optional<std::int64_t>(v.get<std::int64_t>())) << key;
    }
}

class GgmlView : public ::testing::TestWithParam<const char*> {};

TEST_P(GgmlView, ForgeReadsWhatGgmlReads) {
    const json& theirs = golden().at("files").at(GetParam());
    const auto file = GgufFile::open(std::string(FORGE_TEST_DATA_DIR) + "/" + GetParam());

    ASSERT_EQ(file.metadata().size(), theirs.at("metadata").size());
    for (const auto& kv : theirs.at("metadata")) {
        const std::string key = kv.at("key").get<std::string>();
        const Value* ours = file.find(key);
        ASSERT_NE(ours, nullptr) << key;
        EXPECT_EQ(static_cast<int>(ours->type()), kv.at("type").get<int>()) << key;
        expect_same_value(*ours, kv, key);
    }

    ASSERT_EQ(file.tensors().size(), theirs.at("tensors").size());
    for (const auto& t : theirs.at("tensors")) {
        const std::string name = t.at("name").get<std::string>();
        const TensorInfo* info = file.find_tensor(name);
        ASSERT_NE(info, nullptr) << name;
        EXPECT_EQ(dtype_traits(info->dtype).ggml_type, t.at("ggml_type").get<int>()) << name;
        EXPECT_EQ(info->dims, t.at("ne").get<std::vector<std::int64_t>>()) << name;
        const auto bits = decoded_bits(file, *info);
        EXPECT_EQ(fnv1a64(bits), t.at("fnv1a64").get<std::string>()) << name;
        if (!t.contains("bits")) continue;
        const auto want = t.at("bits").get<std::vector<std::uint32_t>>();
        ASSERT_EQ(bits.size(), want.size()) << name;
        for (std::size_t i = 0; i < bits.size(); ++i) ASSERT_EQ(bits[i], want[i]) << name << " element " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Files, GgmlView,
                         ::testing::Values("gguf/ggml_written.gguf", "llm/qwen2-q4_0.gguf", "llm/llama-q4_k.gguf",
                                           "llm/qwen3-q6_k.gguf"),
                         [](const auto& info) { return "file_" + std::to_string(info.index); });

}  // namespace
}  // namespace forge::gguf
