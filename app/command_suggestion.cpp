#include "app/command_suggestion.h"

#include "models/asr/wer.h"

#include <fmt/format.h>

#include <vector>

namespace forge::app {

namespace {

// A word misspelt by more edits than this is not taken for a command (git suggests within a
// similar distance); "2" in `--threads 2` or a file name is far from every command.
constexpr std::int64_t kMaxEdits = 2;

// The Levenshtein distance in characters: the word error rate's alignment (models/asr/wer.h,
// the one definition of edit distance) over one-character "words".
std::int64_t edit_distance(const std::string& a, const std::string& b) {
    const auto characters = [](const std::string& s) {
        std::vector<std::string> out;
        for (char c : s) out.emplace_back(1, c);
        return out;
    };
    return asr::word_errors(characters(a), characters(b)).errors();
}

// The commands --help lists (a hidden one, in no group, is not suggested).
std::vector<std::string> command_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (!sub->get_name().empty() && !sub->get_group().empty()) names.push_back(sub->get_name());
    return names;
}

const CLI::App* subcommand_named(const CLI::App& app, const std::string& name) {
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (sub->check_name(name)) return sub;
    return nullptr;
}

// The nearest of `names` to `word` within kMaxEdits; empty when none is that close.
std::string nearest(const std::string& word, const std::vector<std::string>& names) {
    std::string best;
    std::int64_t best_distance = kMaxEdits + 1;
    for (const std::string& name : names) {
        const std::int64_t d = edit_distance(word, name);
        if (d < best_distance) best = name, best_distance = d;
    }
    return best;
}

}  // namespace

std::optional<std::string> misspelt_command(const CLI::App& root, std::span<const std::string> args) {
    const CLI::App* level = &root;
    std::string path = "forge";  // root's own name is argv[0], a path
    for (const std::string& arg : args) {
        if (arg.empty() || arg.front() == '-') continue;  // flags, and with them their values' dashes
        const std::vector<std::string> names = command_names(*level);
        if (names.empty()) return std::nullopt;  // a command's own arguments from here on
        if (const CLI::App* sub = subcommand_named(*level, arg)) {
            level = sub;
            path += " " + sub->get_name();
            continue;
        }
        const std::string guess = nearest(arg, names);
        if (guess.empty()) continue;  // an option's value (`--threads 2`), not a command
        return fmt::format("'{}' is not a {} command. Did you mean '{}'?\nThe commands are: {}", arg, path, guess,
                           fmt::join(names, ", "));
    }
    return std::nullopt;
}

}  // namespace forge::app
