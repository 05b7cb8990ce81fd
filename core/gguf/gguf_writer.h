// Writing GGUF files the way ggml's gguf_write_to_file lays them out: header, metadata in
// insertion order, tensor infos, zero padding to the alignment, then each tensor's data
// padded to the alignment. A file that ggml (or this writer) wrote, read with GgufFile and
// written back unchanged, is byte-identical.
//
// Tensor data is produced on demand, one tensor at a time, so that quantizing a model never
// holds more than one output tensor in memory. The file appears only when complete: it is
// written to "<path>.tmp" and renamed.
#pragma once

#include "core/dtype.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/value.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace forge::gguf {

class GgufWriter {
public:
    // Fills exactly the tensor's byte count.
    using Producer = std::function<void(std::span<std::byte> out)>;

    explicit GgufWriter(std::uint32_t version = 3) : version_(version) {}

    // Adds or replaces a metadata entry (a replaced entry keeps its position).
    void set(const std::string& key, Value value);
    void remove(const std::string& key);
    const std::vector<KeyValue>& metadata() const { return metadata_; }

    // dims in GGUF order (innermost first).
    void add_tensor(std::string name, DType dtype, std::vector<std::int64_t> dims, Producer produce);
    void add_tensor(std::string name, DType dtype, std::vector<std::int64_t> dims, std::span<const std::byte> data);

    // Writes the whole file; throws (leaving no file at `path`) on any error.
    void write(const std::string& path) const;
    // The same bytes, in memory (tests, small files).
    std::vector<std::byte> to_bytes() const;

    // Everything in `file`, data borrowed from it: a round trip is copy_of(GgufFile::open(p)).write(q).
    static GgufWriter copy_of(const GgufFile& file);

private:
    struct PendingTensor {
        TensorInfo info;
        Producer produce;
    };
    template <typename Sink>
    void emit(Sink& sink) const;
    std::uint32_t alignment() const;

    std::uint32_t version_;
    std::vector<KeyValue> metadata_;
    std::vector<PendingTensor> tensors_;
    // Where each key sits in metadata_, and the tensor names taken: set() and add_tensor()
    // look up in constant time, so writing n entries is linear in n (a scan per entry made
    // quantizing 200 000 tensors take minutes).
    std::unordered_map<std::string, std::size_t> key_index_;
    std::unordered_set<std::string> tensor_names_;
};

}  // namespace forge::gguf
