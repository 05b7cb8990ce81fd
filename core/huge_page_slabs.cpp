#include "core/huge_page_slabs.h"

#include "core/error.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <new>

namespace forge {

namespace {

std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

}  // namespace

// One anonymous mapping, 2 MiB-aligned (mapped one huge page larger, the ends trimmed off).
class HugePageSlabs::Slab {
public:
    Slab(std::size_t bytes, std::shared_ptr<std::atomic<std::size_t>> mapped) : bytes_(bytes), mapped_(std::move(mapped)) {
        const std::size_t padded = bytes + kHugePage;
        void* raw = ::mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) throw std::bad_alloc();
        const auto start = reinterpret_cast<std::uintptr_t>(raw);
        const auto aligned = round_up(start, kHugePage);
        if (aligned > start) ::munmap(raw, aligned - start);
        if (const std::uintptr_t end = start + padded; end > aligned + bytes) {
            ::munmap(reinterpret_cast<void*>(aligned + bytes), end - aligned - bytes);
        }
        data_ = reinterpret_cast<std::byte*>(aligned);
        // Only a hint: without THP (mode "never", another kernel) the slab is plain pages.
        (void)::madvise(data_, bytes_, MADV_HUGEPAGE);
        *mapped_ += bytes_;
    }
    ~Slab() {
        ::munmap(data_, bytes_);
        *mapped_ -= bytes_;
    }
    Slab(const Slab&) = delete;
    Slab& operator=(const Slab&) = delete;

    std::byte* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }

private:
    std::byte* data_ = nullptr;
    std::size_t bytes_;
    std::shared_ptr<std::atomic<std::size_t>> mapped_;
};

HugePageSlabs::HugePageSlabs(std::size_t slab_bytes) : slab_bytes_(round_up(slab_bytes, kHugePage)) {
    check(slab_bytes_ > 0, "huge page slabs: a slab must hold at least one byte");
}

std::shared_ptr<HugePageSlabs::Slab> HugePageSlabs::map_slab(std::size_t bytes) {
    return std::make_shared<Slab>(round_up(bytes, kHugePage), mapped_);
}

std::shared_ptr<std::byte> HugePageSlabs::allocate(std::size_t bytes) {
    // Sizes near 2^64 would wrap in the rounding below: no mapping could hold them anyway.
    if (bytes > (std::size_t{1} << 62)) throw std::bad_alloc();
    const std::size_t size = round_up(std::max<std::size_t>(bytes, 1), kAlignment);
    if (size >= slab_bytes_ / 4) {
        auto own = map_slab(size);
        std::byte* data = own->data();
        return {std::move(own), data};  // the aliasing constructor: the buffer keeps its slab
    }
    std::lock_guard lock(mutex_);
    auto slab = current_.lock();
    if (!slab || used_ + size > slab->bytes()) {
        slab = map_slab(slab_bytes_);  // a full one lives on in its buffers
        current_ = slab;
        used_ = 0;
    }
    std::byte* data = slab->data() + used_;
    used_ += size;
    return {std::move(slab), data};
}

std::size_t HugePageSlabs::mapped_bytes() const { return mapped_->load(); }

HugePageSlabs& HugePageSlabs::global() {
    // Never destroyed: weights of a model with static storage duration may outlive the statics.
    alignas(HugePageSlabs) static std::byte memory[sizeof(HugePageSlabs)];
    static HugePageSlabs* slabs = std::construct_at(reinterpret_cast<HugePageSlabs*>(memory));
    return *slabs;
}

}  // namespace forge
