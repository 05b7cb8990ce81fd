// A GGUF file (ggml/docs/gguf.md), versions 2 and 3, read in place.
//
//   magic "GGUF" | u32 version | u64 tensor count | u64 metadata count
//   metadata:    key (u64 length + bytes) | u32 value type | value
//   tensor info: name | u32 rank | u64 dims[rank] (innermost first) | u32 ggml type | u64 offset
//   padding to `general.alignment` (default 32) | tensor data, each tensor aligned
//
// Parsing validates every count, size and offset against the file before using it, so any
// byte string either parses or throws a FormatError naming the field and byte offset.
// Tensor data is never copied: tensor_bytes() and tensor() point into the mapping.
#pragma once

#include "core/dtype.h"
#include "core/gguf/mapped_file.h"
#include "core/gguf/value.h"
#include "core/shape.h"
#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::gguf {

inline constexpr std::uint32_t kDefaultAlignment = 32;
inline constexpr int kMaxDims = 4;  // GGML_MAX_DIMS
inline constexpr std::string_view kAlignmentKey = "general.alignment";

struct KeyValue {
    std::string key;
    Value value;
};

struct TensorInfo {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> dims;  // GGUF/ggml order: dims[0] is the innermost (ne[0])
    std::uint64_t offset = 0;        // from the start of the data section
    std::uint64_t nbytes = 0;

    std::int64_t numel() const;
    Shape shape() const;  // forge order: outermost first (dims reversed)
    // "[4096, 32000]": the dims in ggml's order, ne[0] (the row length) first, as llama.cpp's
    // tools print them; what `forge gguf info` and `forge quantize` show.
    std::string dims_text() const;
};

class GgufFile {
public:
    // Map and parse a file; the mapping lives as long as the GgufFile or any tensor from it.
    static GgufFile open(const std::string& path);
    // Parse bytes someone else keeps alive (tests, the fuzzer). `source` names them in errors.
    static GgufFile parse(std::span<const std::byte> bytes, std::string source);

    std::uint32_t version() const { return version_; }
    std::uint32_t alignment() const { return alignment_; }
    std::size_t data_offset() const { return data_offset_; }
    const std::string& source() const { return source_; }
    std::span<const std::byte> bytes() const { return bytes_; }
    bool mapped() const { return mapping_ != nullptr; }  // open()ed, not parse()d

    const std::vector<KeyValue>& metadata() const { return metadata_; }
    const Value* find(std::string_view key) const;  // nullptr if absent

    const std::vector<TensorInfo>& tensors() const { return tensors_; }
    const TensorInfo* find_tensor(std::string_view name) const;  // nullptr if absent
    const TensorInfo& tensor_info(std::string_view name) const;  // throws if absent

    std::span<const std::byte> tensor_bytes(const TensorInfo& info) const;
    // A zero-copy tensor over the file's bytes (copy-on-write: writing to it never changes
    // the file). Its storage keeps the mapping alive.
    Tensor tensor(const TensorInfo& info) const;

private:
    friend class Parser;
    std::shared_ptr<const MappedFile> mapping_;  // null for parse()
    std::span<const std::byte> bytes_;
    std::string source_;
    std::uint32_t version_ = 3;
    std::uint32_t alignment_ = kDefaultAlignment;
    std::size_t data_offset_ = 0;
    std::vector<KeyValue> metadata_;
    std::vector<TensorInfo> tensors_;
};

}  // namespace forge::gguf
