#include "core/checkpoint/atomic_file.h"

#include "core/error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

namespace forge::checkpoint {
namespace {

// The reason for the last failed system call, read before anything else can change errno.
std::string last_error() { return std::strerror(errno); }

// A regular file under the temporary file's name is what a killed run left: removed, so
// that the temporary file can be created anew. Anything else (a symbolic link, a folder)
// stays, and creating the temporary file then fails.
void remove_leftover(const std::filesystem::path& temporary) {
    struct stat existing {};
    if (::lstat(temporary.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) ::unlink(temporary.c_str());
}

// Checks the target, then creates its temporary file anew; returns its descriptor.
int create_temporary(const std::filesystem::path& target, const std::filesystem::path& temporary, mode_t mode) {
    check_replaceable_output(target);
    remove_leftover(temporary);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) return fd;
    if (errno == EEXIST)
        fail("cannot create {}: something that is not a regular file has its name (forge creates its temporary "
             "file anew and writes through no link); remove it",
             temporary.string());
    fail("cannot create {}: {}", temporary.string(), last_error());
}

}  // namespace

FileDescriptor::~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
}

TemporaryFile::TemporaryFile(std::filesystem::path target, mode_t mode)
    : target_(std::move(target)),
      temporary_(target_.string() + ".tmp"),
      fd_(create_temporary(target_, temporary_, mode)) {}

TemporaryFile::~TemporaryFile() {
    if (committed_) return;
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
}

void TemporaryFile::write(std::span<const std::byte> data) {
    while (!data.empty()) {
        const ssize_t written = ::write(fd_.get(), data.data(), data.size());
        if (written < 0 && errno == EINTR) continue;
        check(written > 0, "writing {}: {}", temporary_.string(), std::strerror(errno));
        data = data.subspan(static_cast<std::size_t>(written));
    }
}

void TemporaryFile::commit() {
    if (::fsync(fd_.get()) != 0) fail("flushing {}: {}", temporary_.string(), last_error());
    if (::close(fd_.release()) != 0) fail("closing {}: {}", temporary_.string(), last_error());
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
        const std::string reason = last_error();  // before the destructor's remove() can touch errno
        fail("cannot rename {} to {}: {}", temporary_.string(), target_.string(), reason);
    }
    committed_ = true;
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> contents) {
    TemporaryFile temporary(path);
    temporary.write(contents);
    temporary.commit();
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
    write_file_atomically(path, std::as_bytes(std::span(contents.data(), contents.size())));
}

void check_replaceable_output(const std::filesystem::path& output) {
    struct stat existing {};
    if (::lstat(output.c_str(), &existing) != 0 || S_ISREG(existing.st_mode)) return;
    if (S_ISLNK(existing.st_mode))
        fail("cannot write {}: it is a symbolic link (forge renames a new file over the name it is given, which would "
             "replace the link); name the file itself",
             output.string());
    fail("cannot write {}: it is not a regular file (forge writes a temporary file and renames it over the target)",
         output.string());
}

void check_not_an_input(const std::filesystem::path& output, std::initializer_list<std::filesystem::path> inputs) {
    for (const std::filesystem::path& written : {output, std::filesystem::path(output.string() + ".tmp")}) {
        struct stat out {};
        if (::stat(written.c_str(), &out) != 0) continue;  // does not exist yet: nothing to replace
        for (const std::filesystem::path& input : inputs) {
            struct stat in {};
            if (::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
                fail("refusing to write {}: it is the input file {}", written.string(), input.string());
        }
    }
    check_replaceable_output(output);
}

void check_distinct_outputs(const std::filesystem::path& first, const std::filesystem::path& second) {
    std::error_code ignored;
    const auto resolved = [&](const std::filesystem::path& p) {
        return std::filesystem::weakly_canonical(std::filesystem::absolute(p, ignored), ignored);
    };
    struct stat a {}, b {};
    const bool same_inode = ::stat(first.c_str(), &a) == 0 && ::stat(second.c_str(), &b) == 0 &&
                            a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    if (same_inode || resolved(first) == resolved(second))
        fail("refusing to write {} and {}: they are the same file, and the second would replace the first",
             first.string(), second.string());
}

}  // namespace forge::checkpoint
