// Storage: the bytes behind one or more tensors. Shared (std::shared_ptr) by a tensor and all
// of its views; the memory goes back when the last one lets go. Either owned (from the
// BufferPool, 64-byte aligned) or borrowed (e.g. a region of an mmap'd GGUF file), in which
// case a release hook runs instead of a free.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>

namespace forge {

class Storage {
public:
    using ReleaseHook = std::function<void()>;

    // Owned, uninitialized, 64-byte-aligned bytes from the global BufferPool.
    static std::shared_ptr<Storage> allocate(std::size_t bytes);
    // Someone else's bytes; `release` (may be empty) runs when the last tensor lets go.
    static std::shared_ptr<Storage> borrow(std::byte* data, std::size_t bytes, ReleaseHook release);

private:
    // A pass key: only the factories above can name it, yet std::make_shared can still
    // reach the (public) constructor below.
    struct Key {
        explicit Key() = default;
    };

public:
    Storage(Key, std::byte* data, std::size_t size, bool owned, ReleaseHook release);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    std::byte* data() const { return data_; }
    std::size_t size() const { return size_; }
    std::span<std::byte> bytes() const { return {data_, size_}; }
    bool owned() const { return owned_; }

private:
    std::byte* data_;
    std::size_t size_;
    bool owned_;
    ReleaseHook release_;
};

}  // namespace forge
