#include "core/infer/interleaved_weights.h"

#include "core/error.h"
#include "core/huge_page_slabs.h"
#include "core/quant/block_types.h"
#include "core/thread_pool.h"
#include "kernels/quant_blocks.h"
#include "kernels/quant_gemm_interleaved_k.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace forge::infer {

namespace {

#if defined(FORGE_INTERLEAVED_K_GEMM)
// The bytes of one 16-row group of `blocks` blocks in Block's interleaved layout.
template <typename Block>
std::size_t group_bytes(std::int64_t blocks) {
    if constexpr (Block::kSize == kernels::kSuperBlock) return kernels::interleaved_k_group_bytes<Block>(blocks);
    else return kernels::interleaved_group_bytes<Block>(blocks);
}

// Row `lane` of a group back to plain blocks of the dtype's format.
void copy_group_row(DType dtype, const std::byte* group, std::int64_t blocks, int lane, std::byte* out) {
    quant::visit_block_type(dtype, [&](auto tag) {
        using Block = typename decltype(tag)::type;
        if constexpr (kernels::kHasInterleavedGemmFor<Block> &&
                      requires(Block* b) { kernels::simd::deinterleave_row(group, blocks, lane, b); }) {
            kernels::simd::deinterleave_row(group, blocks, lane, reinterpret_cast<Block*>(out));
        }
    });
}

// Chunks of 256 groups (a few MiB): each is copied by the pool, then (release_source) its
// source pages are given back before the next is read, so a large matrix (a tied output
// head) never has both copies resident.
template <typename Block>
std::shared_ptr<const InterleavedWeights> interleave(const Tensor& weight, DType dtype, bool release_source) {
    constexpr std::int64_t kChunkGroups = 256, kPoolGroups = 16;
    const std::int64_t rows = weight.size(0), blocks = weight.size(1) / Block::kSize;
    const std::int64_t groups = (rows + kernels::kInterleave - 1) / kernels::kInterleave;
    auto packed = std::make_shared<InterleavedWeights>(dtype, rows, blocks, group_bytes<Block>(blocks));
    const auto* w = reinterpret_cast<const Block*>(weight.raw_data());
    const auto row_of_group = [&](std::int64_t g) { return std::min(rows, g * kernels::kInterleave); };
    for (std::int64_t chunk = 0; chunk < groups; chunk += kChunkGroups) {
        const std::int64_t chunk_end = std::min(groups, chunk + kChunkGroups);
        ThreadPool::global().parallel_for(chunk_end - chunk, kPoolGroups, [&](std::int64_t begin, std::int64_t end) {
            const std::int64_t r0 = row_of_group(chunk + begin), r1 = row_of_group(chunk + end);
            kernels::simd::interleave(w + r0 * blocks, r1 - r0, blocks, const_cast<std::byte*>(packed->group(chunk + begin)));
        });
        if (release_source) {
            const std::int64_t r0 = row_of_group(chunk), r1 = row_of_group(chunk_end);
            release_mapped_pages({reinterpret_cast<const std::byte*>(w + r0 * blocks), static_cast<std::size_t>(r1 - r0) * static_cast<std::size_t>(blocks) * sizeof(Block)});
        }
    }
    return packed;
}
#endif

}  // namespace

InterleavedWeights::InterleavedWeights(DType dtype, std::int64_t rows, std::int64_t blocks, std::size_t group_bytes)
    : dtype_(dtype), rows_(rows), blocks_(blocks), group_bytes_(group_bytes) {
    const auto groups = static_cast<std::size_t>((rows + kernels::kInterleave - 1) / kernels::kInterleave);
    bytes_ = HugePageSlabs::global().allocate(groups * group_bytes);
}

void InterleavedWeights::copy_row(std::int64_t r, std::span<std::byte> out) const {
    check(r >= 0 && r < rows_, "interleaved weights: row {} out of range [0, {})", r, rows_);
    const auto row_bytes = dtype_bytes(dtype_, static_cast<std::size_t>(blocks_) * static_cast<std::size_t>(dtype_traits(dtype_).block_size));
    check(out.size() == row_bytes, "interleaved weights: a row is {} bytes, not {}", row_bytes, out.size());
#if defined(FORGE_INTERLEAVED_K_GEMM)
    copy_group_row(dtype_, group(r / kernels::kInterleave), blocks_, static_cast<int>(r % kernels::kInterleave), out.data());
#endif
}

std::shared_ptr<const InterleavedWeights> InterleavedWeights::from(const Tensor& weight, bool release_source) {
#if defined(FORGE_INTERLEAVED_K_GEMM)
    check(weight.rank() == 2 && weight.is_contiguous(), "interleaved weights: expected a contiguous matrix");
#if defined(FORGE_INTERLEAVED_NIBBLE_GEMM)
    if (weight.dtype() == DType::Q4_0) return interleave<kernels::BlockQ4_0>(weight, DType::Q4_0, release_source);
    if (weight.dtype() == DType::Q5_0) return interleave<kernels::BlockQ5_0>(weight, DType::Q5_0, release_source);
    if (weight.dtype() == DType::Q5_1) return interleave<kernels::BlockQ5_1>(weight, DType::Q5_1, release_source);
    if (weight.dtype() == DType::MXFP4) return interleave<kernels::BlockMXFP4>(weight, DType::MXFP4, release_source);
#endif
#if defined(FORGE_INTERLEAVED_GEMM)
    if (weight.dtype() == DType::Q8_0) return interleave<kernels::BlockQ8_0>(weight, DType::Q8_0, release_source);
#endif
    if (weight.dtype() == DType::Q4_K) return interleave<kernels::BlockQ4_K>(weight, DType::Q4_K, release_source);
    if (weight.dtype() == DType::Q5_K) return interleave<kernels::BlockQ5_K>(weight, DType::Q5_K, release_source);
    if (weight.dtype() == DType::Q6_K) return interleave<kernels::BlockQ6_K>(weight, DType::Q6_K, release_source);
#endif
    (void)weight;
    (void)release_source;
    return nullptr;
}

std::shared_ptr<const InterleavedWeights> InterleavedWeights::for_file(const Tensor& weight, const gguf::GgufFile& file) {
    return repacks(file) ? from(weight, file.mapped()) : nullptr;
}

std::uint64_t InterleavedWeights::repack_limit_bytes() {
    const auto pages = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES));
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    return pages * page / 2;
}

bool InterleavedWeights::repacks(const gguf::GgufFile& file) {
    return !file.mapped() || file.bytes().size() <= repack_limit_bytes();
}

void release_mapped_pages(std::span<const std::byte> bytes) {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<std::uintptr_t>(bytes.data()) + page - 1) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(bytes.data()) + bytes.size()) / page * page;
    if (end <= begin) return;
    // Dropping pages is only an optimization: a failure leaves them resident, nothing worse.
    // MADV_RANDOM too: without it peak RSS (Q4_0 0.6B, pp512) was 48 MiB higher, the fault-around
    // and readahead of the reads that follow mapping released pages back in.
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_RANDOM);
}

}  // namespace forge::infer
