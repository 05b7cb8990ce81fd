// How `forge ... --help` shows an option, the same way in every subcommand:
//
//   --ctx INT in [1, 16777216]   Context size in tokens (default 4096)
//   --format text|json|srt|vtt   Output ...
//   --data FILE ... REQUIRED     Text files ...
//
// After the name comes what the value is: its type, or the kind or the list of names a
// validator gives (FILE, FOLDER, a|b|c), then a range ("in [a, b]", ">= a" when the upper
// bound is only a guard against overflow). The default is part of the description, always as
// "(default X)" (a value) or "(default: ...)" (a phrase); a default captured by CLI11
// (capture_default_str) is written there too, never as "=X" after the type. Without this,
// CLI11's own formatting leaked into the help: "INT:INT in [-1 - 1099511627776]",
// "TEXT:{text,json}", "--no-webui{false}".
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace forge::app {

class HelpFormatter : public CLI::Formatter {
public:
    std::string make_option_name(const CLI::Option* option, bool is_positional) const override;
    std::string make_option_opts(const CLI::Option* option) const override;
    std::string make_option_desc(const CLI::Option* option) const override;
};

// What the value of `type_name` (CLI11's "TYPE:VALIDATOR:...") is, as the help shows it.
std::string value_label(const std::string& type_name);

}  // namespace forge::app
