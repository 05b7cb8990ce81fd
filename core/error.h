// Errors in forge are exceptions that carry their context (file, field, offset, request)
// all the way to app/, where they become one message and a non-zero exit code.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace forge {

// Something the caller asked for is not valid: wrong shapes, dtypes, arguments.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A file (or other external input) is malformed, truncated or unsupported.
class FormatError : public Error {
public:
    using Error::Error;
};

// Throw an Error whose message is formatted with {fmt}.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
    throw Error(fmt::format(format, std::forward<Args>(args)...));
}

// Check a precondition on user input; on failure throw an Error with the formatted message.
template <typename... Args>
void check(bool condition, fmt::format_string<Args...> format, Args&&... args) {
    if (!condition) {
        throw Error(fmt::format(format, std::forward<Args>(args)...));
    }
}

// Throw a FormatError (a malformed input file) whose message is formatted with {fmt}.
template <typename... Args>
[[noreturn]] void fail_format(fmt::format_string<Args...> format, Args&&... args) {
    throw FormatError(fmt::format(format, std::forward<Args>(args)...));
}

// Check what a file says; on failure throw a FormatError with the formatted message.
template <typename... Args>
void check_format(bool condition, fmt::format_string<Args...> format, Args&&... args) {
    if (!condition) fail_format<Args...>(format, std::forward<Args>(args)...);
}

}  // namespace forge
