// Reading a whole text file for a subcommand (training data, a file to tokenize), with an
// error that names the file.
#pragma once

#include "core/error.h"

#include <fstream>
#include <sstream>
#include <string>

namespace forge::app {

inline std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    check(in.good(), "{}: cannot open the file", path);
    std::ostringstream text;
    text << in.rdbuf();
    check(!in.bad(), "{}: read error", path);
    return std::move(text).str();
}

}  // namespace forge::app
