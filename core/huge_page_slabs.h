// Long-lived, read-mostly buffers (a model's repacked weights) packed into 2 MiB-aligned slabs
// that the kernel may back with transparent huge pages (madvise(MADV_HUGEPAGE); Debian's
// default THP mode is "madvise"). A decode step streams hundreds of matrices of 0.5-3 MB each:
// on 4 KiB pages every 4 KiB of weights costs a TLB entry and a page walk the prefetchers do
// not cross, on huge pages one entry covers 2 MiB. Per-matrix huge pages would round every
// matrix up to 2 MiB; a slab packs them back to back.
//
// A buffer is a shared pointer into its slab; a slab is unmapped when its last buffer goes.
// Space is never reused within a slab (weights live as long as their model), so a slab's
// waste is its unused tail: virtual address space, resident only up to the 2 MiB page that
// the last buffer touched. Buffers of a quarter slab or more get a slab of their own.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

namespace forge {

class HugePageSlabs {
public:
    static constexpr std::size_t kHugePage = std::size_t{2} << 20;
    static constexpr std::size_t kAlignment = 64;  // every buffer starts on a cache line

    explicit HugePageSlabs(std::size_t slab_bytes = std::size_t{64} << 20);

    // `bytes` of zeroed memory, kAlignment-aligned, alive while the pointer (or a copy) is.
    std::shared_ptr<std::byte> allocate(std::size_t bytes);

    // Bytes of slabs still mapped (live buffers keep theirs), for tests and reports.
    std::size_t mapped_bytes() const;

    // The slabs of the repacked weights of every model in the process.
    static HugePageSlabs& global();

private:
    class Slab;
    std::shared_ptr<Slab> map_slab(std::size_t bytes);

    std::size_t slab_bytes_;
    std::mutex mutex_;
    // The slab new small buffers are cut from; weak, so that the last buffer of a released
    // model unmaps it.
    std::weak_ptr<Slab> current_;
    std::size_t used_ = 0;           // bytes of current_ handed out
    // Shared with the slabs, which may outlive this object (their buffers hold them).
    std::shared_ptr<std::atomic<std::size_t>> mapped_ = std::make_shared<std::atomic<std::size_t>>(0);
};

}  // namespace forge
