// Element types. One enum covers the plain numeric types a tensor holds and the GGML block
// formats a GGUF file stores: a quantized tensor is a tensor whose dtype packs `block_size`
// elements into `block_bytes` bytes. `dtype_traits` is the one place that knows each type's
// layout (as ggml's type-traits table is), and every switch over DType has no `default:`,
// so -Werror=switch turns a new type into a compile error wherever it must be handled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace forge {

enum class DType : std::uint8_t {
    // Plain numeric types.
    F32, F16, BF16, F64, I8, I16, I32, I64, U8,  // U8 doubles as bool
    // GGML block formats (see ggml/include/ggml.h, enum ggml_type).
    Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1,
    Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K,
    IQ2_XXS, IQ2_XS, IQ3_XXS, IQ1_S, IQ4_NL, IQ3_S, IQ2_S, IQ4_XS, IQ1_M,
    TQ1_0, TQ2_0, MXFP4,
};

inline constexpr int kDTypeCount = static_cast<int>(DType::MXFP4) + 1;

struct DTypeTraits {
    std::string_view name;    // as llama.cpp prints it: "f32", "q4_K", ...
    int block_size;           // elements per block (1 for plain types)
    int block_bytes;          // bytes per block
    int ggml_type;            // id in GGUF files; -1 where ggml has no such type
    bool quantized;           // a block format (block_size > 1 or a scale-carrying type)
};

constexpr DTypeTraits dtype_traits(DType t) {
    // Block sizes and byte counts follow ggml's block_* structs (ggml-common.h).
    switch (t) {
        case DType::F32:     return {"f32", 1, 4, 0, false};
        case DType::F16:     return {"f16", 1, 2, 1, false};
        case DType::BF16:    return {"bf16", 1, 2, 30, false};
        case DType::F64:     return {"f64", 1, 8, 28, false};
        case DType::I8:      return {"i8", 1, 1, 24, false};
        case DType::I16:     return {"i16", 1, 2, 25, false};
        case DType::I32:     return {"i32", 1, 4, 26, false};
        case DType::I64:     return {"i64", 1, 8, 27, false};
        case DType::U8:      return {"u8", 1, 1, -1, false};
        case DType::Q4_0:    return {"q4_0", 32, 18, 2, true};
        case DType::Q4_1:    return {"q4_1", 32, 20, 3, true};
        case DType::Q5_0:    return {"q5_0", 32, 22, 6, true};
        case DType::Q5_1:    return {"q5_1", 32, 24, 7, true};
        case DType::Q8_0:    return {"q8_0", 32, 34, 8, true};
        case DType::Q8_1:    return {"q8_1", 32, 36, 9, true};
        case DType::Q2_K:    return {"q2_K", 256, 84, 10, true};
        case DType::Q3_K:    return {"q3_K", 256, 110, 11, true};
        case DType::Q4_K:    return {"q4_K", 256, 144, 12, true};
        case DType::Q5_K:    return {"q5_K", 256, 176, 13, true};
        case DType::Q6_K:    return {"q6_K", 256, 210, 14, true};
        case DType::Q8_K:    return {"q8_K", 256, 292, 15, true};
        case DType::IQ2_XXS: return {"iq2_xxs", 256, 66, 16, true};
        case DType::IQ2_XS:  return {"iq2_xs", 256, 74, 17, true};
        case DType::IQ3_XXS: return {"iq3_xxs", 256, 98, 18, true};
        case DType::IQ1_S:   return {"iq1_s", 256, 50, 19, true};
        case DType::IQ4_NL:  return {"iq4_nl", 32, 18, 20, true};
        case DType::IQ3_S:   return {"iq3_s", 256, 110, 21, true};
        case DType::IQ2_S:   return {"iq2_s", 256, 82, 22, true};
        case DType::IQ4_XS:  return {"iq4_xs", 256, 136, 23, true};
        case DType::IQ1_M:   return {"iq1_m", 256, 56, 29, true};
        case DType::TQ1_0:   return {"tq1_0", 256, 54, 34, true};
        case DType::TQ2_0:   return {"tq2_0", 256, 66, 35, true};
        case DType::MXFP4:   return {"mxfp4", 32, 17, 39, true};
    }
    return {"?", 1, 0, -1, false};  // unreachable: the switch covers every enumerator
}

constexpr std::string_view dtype_name(DType t) { return dtype_traits(t).name; }
constexpr bool is_quantized(DType t) { return dtype_traits(t).quantized; }

// Bytes taken by `n` elements of type `t`; n must be a multiple of the block size.
constexpr std::size_t dtype_bytes(DType t, std::size_t n) {
    const auto tr = dtype_traits(t);
    return n / static_cast<std::size_t>(tr.block_size) * static_cast<std::size_t>(tr.block_bytes);
}

// Lookups by the names users type and by the ids stored in GGUF files.
std::optional<DType> dtype_from_name(std::string_view name);
std::optional<DType> dtype_from_ggml_type(int ggml_type);

// The C++ element type behind a plain dtype, for typed access (tensor.data<float>()).
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::F64; };
template <> struct DTypeOf<std::int8_t> { static constexpr DType value = DType::I8; };
template <> struct DTypeOf<std::int16_t> { static constexpr DType value = DType::I16; };
template <> struct DTypeOf<std::int32_t> { static constexpr DType value = DType::I32; };
template <> struct DTypeOf<std::int64_t> { static constexpr DType value = DType::I64; };
template <> struct DTypeOf<std::uint8_t> { static constexpr DType value = DType::U8; };

}  // namespace forge
