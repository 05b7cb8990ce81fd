#include "core/dtype.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace forge {

std::optional<DType> dtype_from_name(std::string_view name) {
    // Case-insensitive, so both "Q4_K" (llama-quantize's spelling) and "q4_k" work.
    auto lower = [](std::string_view s) {
        std::string out(s);
        std::transform(out.begin(), out.end(), out.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return out;
    };
    const std::string wanted = lower(name);
    for (int i = 0; i < kDTypeCount; ++i) {
        const auto t = static_cast<DType>(i);
        if (lower(dtype_name(t)) == wanted) return t;
    }
    return std::nullopt;
}

std::optional<DType> dtype_from_ggml_type(int ggml_type) {
    for (int i = 0; i < kDTypeCount; ++i) {
        const auto t = static_cast<DType>(i);
        if (dtype_traits(t).ggml_type == ggml_type) return t;
    }
    return std::nullopt;
}

}  // namespace forge
