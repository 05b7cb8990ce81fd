// What forge's flags accept beyond CLI11's own checks, and how text from files reaches the
// terminal.
//
// CLI::Range lets NaN through (every comparison with NaN is false) and accepts infinities
// when a bound is infinite, so floating-point flags use finite_range or positive_finite
// instead. Integer flags use CLI::Range: a value outside it is a usage error at parse time,
// never a silent default or a division by zero later.
#pragma once

#include "core/error.h"
#include "core/infer/kv_cache.h"
#include "models/llm/embedding_model.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>

namespace forge::app {

// The most steps (and steps between checkpoints, logs, evaluations) any training flag takes:
// years of CPU time at a millisecond a step, and far from overflowing the counts derived from it.
inline constexpr std::int64_t kMaxTrainingSteps = 1'000'000'000;
// The largest learning rate a training flag takes: far past divergence on any model (the
// tests' fast tiny GPTs use up to 20 before nanochat's scaling), short of infinity and NaN.
inline constexpr double kMaxLearningRate = 1000.0;

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
        fmt::format("in [{}, {}]", min, max));
}

// A value that `parse` accepts (it throws on anything else): the same check the command makes
// when it runs, made while the command line is parsed, so a bad name is a usage error (exit 2).
inline CLI::Validator accepted_by(std::function<void(const std::string&)> parse, std::string description) {
    return CLI::Validator(
        [parse = std::move(parse)](std::string& text) -> std::string {
            try {
                parse(text);
                return {};
            } catch (const std::exception& e) {
                return e.what();
            }
        },
        std::move(description));
}

// --kv-type of chat, logits and serve.
inline CLI::Validator kv_cache_type() {
    return accepted_by([](const std::string& name) { (void)infer::kv_type_from_name(name); }, "f16|f32|q8_0");
}

// --pooling of embed and serve.
inline CLI::Validator pooling_type() {
    return accepted_by([](const std::string& name) { (void)llm::pooling_from_name(name); }, "none|mean|cls|last|rank");
}

// A value that may not be empty: `--api-key "$KEY"` with KEY unset must be an error, not a
// server without a key.
inline CLI::Validator non_empty(std::string what) {
    return CLI::Validator(
        [what](std::string& text) -> std::string { return text.empty() ? fmt::format("the value is empty: {}", what) : ""; },
        "");
}

// A finite number in (0, max]: a rate or a duration, where 0 would train or measure nothing.
inline CLI::Validator positive_finite(double max) {
    return CLI::Validator(
        [max](std::string& text) -> std::string {
            double value = 0;
            if (!CLI::detail::lexical_cast(text, value)) return fmt::format("'{}' is not a number", text);
            if (!std::isfinite(value) || value <= 0 || value > max)
                return fmt::format("{} is not a finite number in (0, {}]", text, max);
            return {};
        },
        fmt::format("in (0, {}]", max));
}

// A folder to create or reuse (a run's --out): a file in its place, or in place of a folder
// above it, would only fail later, deep in the library, as a raw "filesystem error".
inline CLI::Validator folder_path() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            // The deepest part of the path that exists must be a folder.
            for (std::filesystem::path part = text; !part.empty(); part = part.parent_path()) {
                std::error_code error;
                const auto status = std::filesystem::status(part, error);
                if (std::filesystem::exists(status)) {
                    if (std::filesystem::is_directory(status)) return {};
                    return part == text ? fmt::format("{} is a file, not a folder", text)
                                        : fmt::format("{}: {} is a file, not a folder", text, part.string());
                }
                if (part == part.parent_path()) break;
            }
            return {};
        },
        "FOLDER");
}

// An input file a command reads: `->check(input_file())`. A missing or unreadable input is an
// error while running (exit 1, README's exit codes), as when any file fails to open, so it is
// not a parse-time check (CLI11's ExistingFile made it a usage error, exit 2): the validator
// only marks the option, and check_input_files tests what it names before the command starts.
inline constexpr const char* kInputFileCheck = "input file";

inline CLI::Validator input_file() {
    return CLI::Validator([](std::string&) { return std::string{}; }, "FILE", kInputFileCheck);
}

// Throws an Error naming the flag and the file when a file given to an input_file() option of
// `command` is missing, a folder or unreadable.
inline void check_input_files(CLI::App& command) {
    for (CLI::Option* option : command.get_options()) {
        try {
            (void)option->get_validator(kInputFileCheck);
        } catch (const CLI::OptionNotFound&) {
            continue;  // not an input file
        }
        const std::string flag = option->get_name();
        for (const std::string& path : option->results()) {
            std::error_code error;
            if (std::filesystem::is_directory(path, error))
                throw Error(fmt::format("{}: {} is a folder, not a file", flag, path));
            std::ifstream probe(path, std::ios::binary);
            if (!probe) throw Error(fmt::format("{}: cannot open '{}': {}", flag, path, std::strerror(errno)));
        }
    }
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
