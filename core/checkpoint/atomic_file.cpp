#include "core/checkpoint/atomic_file.h"

#include "core/error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace forge::checkpoint {
namespace {

// Owns a file descriptor (RAII); closes it unless released.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_;
};

void write_all(int fd, std::span<const std::byte> data, const std::filesystem::path& path) {
    while (!data.empty()) {
        const ssize_t written = ::write(fd, data.data(), data.size());
        if (written < 0 && errno == EINTR) continue;
        check(written > 0, "writing {}: {}", path.string(), std::strerror(errno));
        data = data.subspan(static_cast<std::size_t>(written));
    }
}

// The reason for the last failed system call, read before anything else can change errno.
std::string last_error() { return std::strerror(errno); }

}  // namespace

TemporaryFile::TemporaryFile(std::filesystem::path target)
    : target_(std::move(target)), temporary_(target_.string() + ".tmp") {
    // Renaming over a device or a pipe (/dev/null, /dev/stdout) would replace it with a file.
    struct stat existing {};
    if (::stat(target_.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode))
        fail("cannot write {}: it is not a regular file (forge writes a temporary file and renames it over the target)",
             target_.string());
}

TemporaryFile::~TemporaryFile() {
    if (committed_) return;
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
}

void TemporaryFile::commit() {
    {
        FileDescriptor fd(::open(temporary_.c_str(), O_RDONLY | O_CLOEXEC));
        if (fd.get() < 0) fail("cannot open {}: {}", temporary_.string(), last_error());
        if (::fsync(fd.get()) != 0) fail("flushing {}: {}", temporary_.string(), last_error());
    }
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
        const std::string reason = last_error();  // before the destructor's remove() can touch errno
        fail("cannot rename {} to {}: {}", temporary_.string(), target_.string(), reason);
    }
    committed_ = true;
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> contents) {
    TemporaryFile temporary(path);
    {
        FileDescriptor fd(::open(temporary.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
        if (fd.get() < 0) fail("cannot create {}: {}", temporary.path().string(), last_error());
        write_all(fd.get(), contents, temporary.path());
        if (::close(fd.release()) != 0) fail("closing {}: {}", temporary.path().string(), last_error());
    }
    temporary.commit();
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
    write_file_atomically(path, std::as_bytes(std::span(contents.data(), contents.size())));
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
}

}  // namespace forge::checkpoint
