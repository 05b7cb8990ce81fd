#include "core/gguf/mapped_file.h"

#include "core/error.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace forge::gguf {

namespace {

// Closes a file descriptor on every path out of open(), including throws.
struct FdCloser {
    int fd;
    ~FdCloser() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
    const FdCloser file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    check(file.fd >= 0, "cannot open '{}': {}", path, std::strerror(errno));
    struct stat info {};
    check(::fstat(file.fd, &info) == 0, "cannot stat '{}': {}", path, std::strerror(errno));
    check(S_ISREG(info.st_mode), "'{}' is not a regular file", path);
    const auto size = static_cast<std::size_t>(info.st_size);
    std::byte* data = nullptr;
    if (size > 0) {
        void* mapped = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.fd, 0);
        check(mapped != MAP_FAILED, "cannot mmap '{}': {}", path, std::strerror(errno));
        data = static_cast<std::byte*>(mapped);
    }
    // The mapping stays valid after the descriptor is closed.
    return std::make_shared<const MappedFile>(Key{}, path, data, size);
}

MappedFile::~MappedFile() {
    if (data_ != nullptr) ::munmap(data_, size_);
}

}  // namespace forge::gguf
