// Writing a file so that readers see either the old contents or the complete new ones,
// never a torn mix: write a temporary file next to it, flush it to disk, rename it over the
// target (rename is atomic within a file system).
#pragma once

#include <filesystem>
#include <span>
#include <string_view>

namespace forge::checkpoint {

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> contents);
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace forge::checkpoint
