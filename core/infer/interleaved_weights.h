// A Q4_0, Q5_0, Q5_1, Q8_0, MXFP4, Q4_K, Q5_K or Q6_K weight matrix copied at load into the
// interleaved layout of kernels/quant_gemm_interleaved.h or kernels/quant_gemm_interleaved_k.h
// (groups of 16 rows, quants four bytes at a time), where the build has those kernels (simd on
// AVX-512 VNNI; all but Q8_0 on AVX2 too). The copy is owned, cache-line aligned memory in huge-page slabs
// (core/huge_page_slabs.h); the linear layer multiplies with it in prefill and decode alike. Everything else
// (the scalar backend, other formats, the embedding lookup) keeps reading the original.
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/tensor.h"
#include "kernels/quant_gemm_interleaved.h"

#include <cstddef>
#include <memory>
#include <span>

namespace forge::infer {

class InterleavedWeights {
public:
    // The interleaved copy of `weight` [n_out, n_in], or null where the build has no kernel
    // for its dtype (then the layer multiplies the original). With release_source (weight
    // lies in a private file mapping) the source pages are given back as they are copied.
    static std::shared_ptr<const InterleavedWeights> from(const Tensor& weight, bool release_source);
    // What a model loader calls for each matrix of `file`: from(weight, file.mapped()) where
    // repacks(file), else null (the layer multiplies the mapped original).
    static std::shared_ptr<const InterleavedWeights> for_file(const Tensor& weight, const gguf::GgufFile& file);
    // Whether a model's matrices are copied into the interleaved layout: not for a mapped file
    // larger than half the machine's memory. Such a file (a 30B-A3B Q4_K_M is ~18 GB) loads
    // without copying, its pages left to the kernel's page cache to read in as used and drop
    // under pressure, as llama.cpp's mmap does; repacking would make it anonymous memory that
    // must stay resident, plus a full read of the file before the first token.
    static bool repacks(const gguf::GgufFile& file);
    // The bound repacks() applies, for tests and messages: half of physical memory.
    static std::uint64_t repack_limit_bytes();

    DType dtype() const { return dtype_; }
    std::int64_t rows() const { return rows_; }
    std::int64_t blocks() const { return blocks_; }      // per row
    std::size_t group_bytes() const { return group_bytes_; }
    const std::byte* group(std::int64_t g) const { return bytes_.get() + static_cast<std::size_t>(g) * group_bytes_; }

    // Row r in the original block layout (plain blocks of dtype()) into `out`, which holds
    // exactly one row's bytes: the embedding lookup of a tied output head reads here, so the
    // released pages of the original are never faulted back in.
    void copy_row(std::int64_t r, std::span<std::byte> out) const;

    InterleavedWeights(DType dtype, std::int64_t rows, std::int64_t blocks, std::size_t group_bytes);

private:
    DType dtype_;
    std::int64_t rows_, blocks_;
    std::size_t group_bytes_;
    std::shared_ptr<std::byte> bytes_;  // in core/huge_page_slabs.h's slabs
};

// Gives back the resident pages wholly inside `bytes` (a region of a private file mapping
// that has been copied elsewhere): they are dropped, and re-read from the file if touched
// again, so the original and its copy are not both held in memory.
void release_mapped_pages(std::span<const std::byte> bytes);

}  // namespace forge::infer
