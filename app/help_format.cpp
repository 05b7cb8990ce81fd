#include "app/help_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <sstream>
#include <vector>

namespace forge::app {
namespace {

// An upper bound at or past this guards against overflow only; the help shows ">= min".
constexpr double kUnboundedAbove = 1e12;

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
    return parts;
}

// CLI::Range's "INT in [1 - 1024]" and forge's "in [1, 1024]" / "in (0, 1000]" as one form:
// an optional upper-case type name, "in ", an opening bracket, the lower bound, " - " or ", ",
// the upper bound, "]".
std::optional<std::string> readable_range(std::string_view text) {
    if (const std::size_t space = text.find(' '); space != std::string_view::npos && text.substr(space).starts_with(" in ")) {
        const std::string_view type = text.substr(0, space);
        if (std::all_of(type.begin(), type.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) text.remove_prefix(space + 1);
    }
    if (!text.starts_with("in ") || text.size() < 4 || !text.ends_with("]")) return std::nullopt;
    const char open = text[3];
    if (open != '[' && open != '(') return std::nullopt;
    const std::string_view bounds = text.substr(4, text.size() - 5);
    std::size_t separator = bounds.find(", ");
    if (separator == std::string_view::npos) separator = bounds.find(" - ");
    if (separator == std::string_view::npos || separator == 0) return std::nullopt;
    const std::string low(bounds.substr(0, separator)), high(bounds.substr(separator + 2 + (bounds[separator] == ' ')));
    if (high.empty() || high.find(' ') != std::string::npos || low.find(' ') != std::string::npos) return std::nullopt;
    if (std::stod(high) >= kUnboundedAbove) return fmt::format("{} {}", open == '(' ? ">" : ">=", low);
    return fmt::format("in {}{}, {}]", open, low, high);
}

// CLI::IsMember's "{a,b,c}" as "a|b|c", forge's own lists' form.
std::optional<std::string> readable_list(const std::string& text) {
    if (text.size() < 2 || text.front() != '{' || text.back() != '}') return std::nullopt;
    std::string names = text.substr(1, text.size() - 2);
    for (char& c : names)
        if (c == ',') c = '|';
    return names;
}

}  // namespace

std::string value_label(const std::string& type_name) {
    const std::vector<std::string> parts = split(type_name, ':');
    if (parts.empty()) return {};
    std::string type = parts.front();
    std::vector<std::string> constraints;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        if (parts[i].empty()) continue;
        if (const auto range = readable_range(parts[i])) {
            constraints.push_back(*range);
        } else if (const auto list = readable_list(parts[i])) {
            type = *list;  // the names say what the value is
        } else {
            type = parts[i];  // a kind (FILE, FOLDER, PERCENT) or forge's own list (f16|f32|q8_0)
        }
    }
    for (const std::string& constraint : constraints) type += " " + constraint;
    return type;
}

std::string HelpFormatter::make_option_name(const CLI::Option* option, bool is_positional) const {
    // A negated flag's "{false}" is CLI11's bookkeeping, not a spelling the user types.
    std::string name = CLI::Formatter::make_option_name(option, is_positional);
    for (std::size_t open; (open = name.find('{')) != std::string::npos;) {
        const std::size_t close = name.find('}', open);
        if (close == std::string::npos) break;
        name.erase(open, close - open + 1);
    }
    return name;
}

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
    std::string out;
    if (option->get_type_size() != 0) {
        if (const std::string label = value_label(option->get_type_name()); !label.empty()) out += " " + label;
        if (option->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
        else if (option->get_expected_min() > 1) out += fmt::format(" x {}", option->get_expected());
        if (option->get_required()) out += " REQUIRED";
    }
    if (!option->get_envname().empty()) out += fmt::format(" (env {})", option->get_envname());
    for (const CLI::Option* other : option->get_needs()) out += " (needs " + other->get_name() + ")";
    for (const CLI::Option* other : option->get_excludes()) out += " (not with " + other->get_name() + ")";
    return out;
}

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
    const std::string& description = option->get_description();
    const std::string& default_value = option->get_default_str();
    if (default_value.empty() || option->get_type_size() == 0) return description;
    return fmt::format("{} (default {})", description, default_value);
}

}  // namespace forge::app
