#include "core/storage.h"

#include "core/buffer_pool.h"

namespace forge {

Storage::Storage(Key, std::byte* data, std::size_t size, bool owned, ReleaseHook release)
    : data_(data), size_(size), owned_(owned), release_(std::move(release)) {}

std::shared_ptr<Storage> Storage::allocate(std::size_t bytes) {
    auto* data = static_cast<std::byte*>(BufferPool::global().acquire(bytes));
    return std::make_shared<Storage>(Key{}, data, bytes, true, ReleaseHook{});
}

std::shared_ptr<Storage> Storage::borrow(std::byte* data, std::size_t bytes, ReleaseHook release) {
    return std::make_shared<Storage>(Key{}, data, bytes, false, std::move(release));
}

Storage::~Storage() {
    if (owned_) {
        BufferPool::global().release(data_, size_);
    } else if (release_) {
        release_();
    }
}

}  // namespace forge
