// Writing a file so that readers see either the old contents or the complete new ones,
// never a torn mix: write a temporary file next to it, flush it to disk, rename it over the
// target (rename is atomic within a file system). A failure at any step, or a kill, leaves
// the target as it was; a failure that forge sees also removes the temporary file.
//
// The temporary file is "<target>.tmp", created anew (O_EXCL | O_NOFOLLOW): whatever is
// planted under that name — a symbolic link to another file above all — is never written
// through. A regular file there is a killed run's leftover and is removed first.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <string_view>
#include <utility>

namespace forge::checkpoint {

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> contents);
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// Owns a file descriptor (RAII); closes it unless released.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd = -1) : fd_(fd) {}
    ~FileDescriptor();
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_;
};

// The temporary file behind an atomic write, for writers that produce it themselves (a
// stream, a library such as libsndfile): write to fd() (or write()), then commit().
// Destroyed without a commit (an exception on the way), it removes the temporary file.
class TemporaryFile {
public:
    // Checks the target (check_replaceable_output) and creates the temporary file, with
    // `mode` (less the umask). Throws an Error naming the file when either fails.
    explicit TemporaryFile(std::filesystem::path target, mode_t mode = 0644);
    ~TemporaryFile();
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    const std::filesystem::path& path() const { return temporary_; }
    // The temporary file, open for writing. Writers use it rather than opening path() again.
    int fd() const { return fd_.get(); }
    void write(std::span<const std::byte> data);

    // Flush the temporary file to disk, close it and rename it over the target. Throws an
    // Error with the system's reason (and removes the temporary file) on failure.
    void commit();

private:
    std::filesystem::path target_;
    std::filesystem::path temporary_;
    FileDescriptor fd_;
    bool committed_ = false;
};

// Throws an Error unless `output` is absent or a regular file. A rename replaces whatever
// has the target's name: a symbolic link would become a plain file (as root, /dev/stdout —
// a link to the terminal or to another process's file — was replaced so), and a device, a
// pipe or a folder is no file to replace. One rule for every writer: refused, not followed.
void check_replaceable_output(const std::filesystem::path& output);

// Throws an Error if writing `output` (or its temporary file) would replace one of `inputs`:
// the same file by device and inode, so a symlink or a hard link to an input counts too.
// Checks check_replaceable_output as well, so a command refuses a bad output before working.
void check_not_an_input(const std::filesystem::path& output, std::initializer_list<std::filesystem::path> inputs);

// Throws an Error if two outputs of one command are the same file (the same path once
// folders and links in it are resolved, or the same device and inode): the second write
// would replace the first.
void check_distinct_outputs(const std::filesystem::path& first, const std::filesystem::path& second);

}  // namespace forge::checkpoint
