// What forge's flags accept beyond CLI11's own checks, and how text from files reaches the
// terminal.
//
// CLI::Range lets NaN through (every comparison with NaN is false) and accepts infinities
// when a bound is infinite, so floating-point flags use finite_range instead.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <string_view>

namespace forge::app {

// A finite number in [min, max].
inline CLI::Validator finite_range(double min, double max) {
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            double value = 0;
            if (!CLI::detail::lexical_cast(text, value)) return fmt::format("'{}' is not a number", text);
            if (!std::isfinite(value) || value < min || value > max)
                return fmt::format("{} is not a finite number in [{}, {}]", text, min, max);
            return {};
        },
        fmt::format("FINITE in [{} - {}]", min, max));
}

// A value that may not be empty: `--api-key "$KEY"` with KEY unset must be an error, not a
// server without a key.
inline CLI::Validator non_empty(std::string what) {
    return CLI::Validator(
        [what](std::string& text) -> std::string { return text.empty() ? fmt::format("the value is empty: {}", what) : ""; },
        "NOT EMPTY");
}

// `text` safe to print on a terminal: control characters (ESC starts the sequences that
// move the cursor, set the title or worse), DEL and the C1 controls U+0080-U+009F become
// \xNN escapes. Names and messages read from files pass through this before printing.
inline std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                        static_cast<unsigned char>(text[i + 1]) <= 0x9F;
        if (c1) {
            out += fmt::format("\\u00{:02x}", static_cast<unsigned char>(text[++i]));
        } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
            out += fmt::format("\\x{:02x}", c);
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

}  // namespace forge::app
