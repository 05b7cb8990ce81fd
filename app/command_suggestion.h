// "did you mean chat?": a misspelt subcommand named, with the nearest spelling and the list of
// the commands there are, instead of CLI11's bare "The following argument was not expected".
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <span>
#include <string>

namespace forge::app {

// When `args` (argv without the program name) names a subcommand that `root` does not have,
// at any level (`forge chta`, `forge train gtp`), the message to print in place of the parse
// error: which word, the nearest command when one is close (at most two edits, as git's
// "did you mean"), and the commands of that level. nullopt when no word looks like a command.
std::optional<std::string> misspelt_command(const CLI::App& root, std::span<const std::string> args);

}  // namespace forge::app
