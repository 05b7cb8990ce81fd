#include "app/serve/field_names.h"

#include <regex>

namespace forge::app::serve {

namespace {

std::string rename_all(std::string text, std::span<const FieldName> names) {
    for (const FieldName& name : names) text = std::regex_replace(text, std::regex(name.chat), name.client);
    return text;
}

}  // namespace

ApiError renamed(const ApiError& error, std::span<const FieldName> names) {
    return ApiError(error.status(), rename_all(error.what(), names), error.type(), rename_all(error.param(), names), error.code());
}

}  // namespace forge::app::serve
