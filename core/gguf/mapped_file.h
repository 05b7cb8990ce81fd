// A private memory map of a whole file (RAII): the bytes of a GGUF file are used in place,
// so opening a multi-gigabyte model costs page-table entries, not copies. The map is
// copy-on-write: a tensor that points into it may be written, which copies the touched
// pages and never changes the file.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace forge::gguf {

class MappedFile {
public:
    // Maps `path` read-only; throws forge::Error naming the path if it cannot be opened.
    static std::shared_ptr<const MappedFile> open(const std::string& path);

    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    std::span<const std::byte> bytes() const { return {data_, size_}; }
    // The same bytes, writable (copy-on-write) for tensors that borrow them.
    std::byte* data() const { return data_; }
    const std::string& path() const { return path_; }

private:
    // A pass key: only open() can name it, yet std::make_shared can reach the constructor.
    struct Key {
        explicit Key() = default;
    };

public:
    MappedFile(Key, std::string path, std::byte* data, std::size_t size)
        : path_(std::move(path)), data_(data), size_(size) {}

private:
    std::string path_;
    std::byte* data_;  // nullptr for an empty file (mmap cannot map zero bytes)
    std::size_t size_;
};

}  // namespace forge::gguf
