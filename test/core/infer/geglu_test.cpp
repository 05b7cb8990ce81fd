// geglu_rows computes GELU as llama.cpp's CPU backend does (gemma3's feed-forward): through
// ggml's f16 table. The oracle is that table itself, dumped from the prebuilt llama.cpp by
// tools/llm_goldens/ggml_gelu_table.py: every f16 input must give its entry bit for bit.
#include "core/infer/row_ops.h"
#include "core/quant/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <vector>

namespace forge::infer {
namespace {

std::vector<std::uint16_t> ggml_table() {
    std::ifstream in(FORGE_TEST_DATA_DIR "/llm/ggml_gelu_f16_table.u16", std::ios::binary);
    std::vector<std::uint16_t> table(std::size_t{1} << 16);
    in.read(reinterpret_cast<char*>(table.data()), static_cast<std::streamsize>(table.size() * sizeof(std::uint16_t)));
    EXPECT_TRUE(in.good()) << "cannot read the ggml GELU table";
    return table;
}

std::vector<float> as_floats(const std::vector<std::uint16_t>& halves) {
    std::vector<float> out(halves.size());
    quant::dequantize_bytes(DType::F16, std::as_bytes(std::span(halves)), out);
    return out;
}

TEST(Geglu, EveryF16InputGivesGgmlsTableEntry) {
    const std::vector<std::uint16_t> table = ggml_table();
    std::vector<std::uint16_t> every(table.size());
    for (std::size_t i = 0; i < every.size(); ++i) every[i] = static_cast<std::uint16_t>(i);
    const std::vector<float> inputs = as_floats(every), entries = as_floats(table);
    // The table's range: ggml answers 0 at or below -10 and the input at or above 10.
    std::vector<float> gate, expected;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (!std::isfinite(inputs[i]) || std::abs(inputs[i]) >= 10.0f) continue;
        gate.push_back(inputs[i]);
        expected.push_back(entries[i]);
    }
    const std::vector<float> up(gate.size(), 1.0f), x = gate;
    geglu_rows(gate, up, 1, static_cast<std::int64_t>(gate.size()));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < gate.size(); ++i) {
        if (gate[i] == expected[i]) continue;
        if (++wrong <= 5) ADD_FAILURE() << "gelu(" << x[i] << ") = " << gate[i] << ", ggml's table " << expected[i];
    }
    EXPECT_EQ(wrong, 0u);
}

TEST(Geglu, OutsideTheTableAndTheGatedProduct) {
    // Inputs between f16 values round to the nearest; outside (-10, 10) no table is read.
    std::vector<float> gate = {-12.0f, -10.0f, 10.0f, 11.5f, 1.0001f, 1.0f};
    const std::vector<float> up = {3.0f, 3.0f, 2.0f, 2.0f, 1.0f, 1.0f};
    geglu_rows(gate, up, 2, 3);
    EXPECT_EQ(gate[0], 0.0f);
    EXPECT_EQ(gate[1], 0.0f);
    EXPECT_EQ(gate[2], 20.0f);
    EXPECT_EQ(gate[3], 23.0f);
    EXPECT_EQ(gate[4], gate[5]);  // 1.0001 rounds to the f16 1.0
}

}  // namespace
}  // namespace forge::infer
