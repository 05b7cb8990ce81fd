// Writing a file so that readers see either the old contents or the complete new ones,
// never a torn mix: write a temporary file next to it, flush it to disk, rename it over the
// target (rename is atomic within a file system). A failure at any step, or a kill, leaves
// the target as it was; a failure that forge sees also removes the temporary file.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <span>
#include <string_view>

namespace forge::checkpoint {

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> contents);
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// The temporary file behind an atomic write, for writers that produce it themselves (a
// stream, a library such as libsndfile): write to path(), then commit(). Destroyed without
// a commit (an exception on the way), it removes the temporary file.
class TemporaryFile {
public:
    explicit TemporaryFile(std::filesystem::path target);
    ~TemporaryFile();
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    const std::filesystem::path& path() const { return temporary_; }

    // Flush the temporary file to disk and rename it over the target. Throws an Error with
    // the system's reason (and removes the temporary file) on failure.
    void commit();

private:
    std::filesystem::path target_;
    std::filesystem::path temporary_;
    bool committed_ = false;
};

// Throws an Error if writing `output` (or its temporary file) would replace one of `inputs`:
// the same file by device and inode, so a symlink or a hard link to an input counts too.
void check_not_an_input(const std::filesystem::path& output, std::initializer_list<std::filesystem::path> inputs);

}  // namespace forge::checkpoint
