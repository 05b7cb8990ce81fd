#include "core/json.h"

#include "core/error.h"

#include <fmt/format.h>

namespace forge {
namespace {

// nlohmann's parser keeps its own stack, but copying, printing and comparing a document
// recurse along it: a file nested 20 000 deep must stop while parsing, not overflow the
// stack later.
template <typename Json, typename Input>
Json parse_bounded(Input&& input, const std::string& source, int max_depth) {
    const typename Json::parser_callback_t bounded = [&](int depth, typename Json::parse_event_t, Json&) {
        if (depth > max_depth)
            fail_format("{}: JSON nested more than {} levels deep", source, max_depth);
        return true;
    };
    try {
        return Json::parse(std::forward<Input>(input), bounded);
    } catch (const nlohmann::json::exception& e) {
        // Every nlohmann error (syntax, a number such as 1e400 out of range, bad UTF-8), named.
        fail_format("{}: malformed JSON: {}", source, json_error_text(e));
    }
}

}  // namespace

std::string json_error_text(const nlohmann::json::exception& error) {
    std::string_view text = error.what();
    if (text.starts_with("[json.exception.")) {
        if (const std::size_t end = text.find("] "); end != std::string_view::npos) text.remove_prefix(end + 2);
    }
    return std::string(text);
}

nlohmann::json parse_json(std::istream& in, const std::string& source, int max_depth) {
    return parse_bounded<nlohmann::json>(in, source, max_depth);
}

nlohmann::json parse_json(std::string_view text, const std::string& source, int max_depth) {
    return parse_bounded<nlohmann::json>(text, source, max_depth);
}

nlohmann::ordered_json parse_ordered_json(std::string_view text, const std::string& source, int max_depth) {
    return parse_bounded<nlohmann::ordered_json>(text, source, max_depth);
}

}  // namespace forge
