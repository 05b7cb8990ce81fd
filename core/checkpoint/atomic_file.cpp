#include "core/checkpoint/atomic_file.h"

#include "core/error.h"

#include <fcntl.h>
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

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> contents) {
    const std::filesystem::path temporary = path.string() + ".tmp";
    FileDescriptor fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    check(fd.get() >= 0, "cannot create {}: {}", temporary.string(), std::strerror(errno));
    write_all(fd.get(), contents, temporary);
    check(::fsync(fd.get()) == 0, "flushing {}: {}", temporary.string(), std::strerror(errno));
    check(::close(fd.release()) == 0, "closing {}: {}", temporary.string(), std::strerror(errno));
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    check(!error, "renaming {} to {}: {}", temporary.string(), path.string(), error.message());
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
    write_file_atomically(path, std::as_bytes(std::span(contents.data(), contents.size())));
}

}  // namespace forge::checkpoint
