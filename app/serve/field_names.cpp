#include "app/serve/field_names.h"

#include <cctype>
#include <string_view>

namespace forge::app::serve {

namespace {

// The length of `pattern` matched at `at` in `text` ('#': one or more digits), or npos.
std::size_t match_length(std::string_view text, std::size_t at, std::string_view pattern) {
    std::size_t i = at;
    for (const char c : pattern) {
        if (c != '#') {
            if (i >= text.size() || text[i] != c) return std::string_view::npos;
            ++i;
            continue;
        }
        const std::size_t digits = i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        if (i == digits) return std::string_view::npos;
    }
    return i - at;
}

std::string rename_all(std::string text, std::span<const FieldName> names) {
    for (const FieldName& name : names) {
        std::string out;
        for (std::size_t i = 0; i < text.size();) {
            const std::size_t length = match_length(text, i, name.chat);
            if (length == std::string_view::npos) {
                out += text[i++];
            } else {
                out += name.client;
                i += length;
            }
        }
        text = std::move(out);
    }
    return text;
}

}  // namespace

ApiError renamed(const ApiError& error, std::span<const FieldName> names) {
    // The param renamed as its messages quote it, then unquoted.
    const std::string param = error.param().empty() ? std::string() : rename_all("'" + error.param(), names).substr(1);
    return ApiError(error.status(), rename_all(error.what(), names), error.type(), param, error.code());
}

}  // namespace forge::app::serve
