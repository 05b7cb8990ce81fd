// Parsing a GGUF file: the checks follow ggml's own reader (ggml/src/gguf.cpp) and add the
// ones a fuzzer needs: no count is trusted before it is compared with the bytes left, and
// nesting of arrays is bounded so that a hostile file cannot exhaust the stack.
#include "core/gguf/byte_reader.h"
#include "core/gguf/gguf_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <vector>

namespace forge::gguf {

namespace {

constexpr int kMaxArrayDepth = 16;

// The fewest bytes one element of `type` can take in a file: a bound that turns any element
// count into an allocation no larger than the file itself.
std::size_t min_encoded_size(ValueType type) {
    if (type == ValueType::String) return 8;       // u64 length
    if (type == ValueType::Array) return 4 + 8;    // u32 type + u64 count
    return value_type_size(type);
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

class Parser {
public:
    Parser(GgufFile& file) : file_(file), in_(file.bytes_, file.source_) {}

    void parse() {
        read_header();
        for (std::uint64_t i = 0; i < kv_count_; ++i) read_key_value(i);
        read_alignment();
        for (std::uint64_t i = 0; i < tensor_count_; ++i) read_tensor_info(i);
        locate_data();
    }

private:
    void read_header() {
        const auto magic = in_.read_bytes(4, "magic");
        if (std::memcmp(magic.data(), "GGUF", 4) != 0) {
            in_.fail_at(0, "magic", "not a GGUF file (expected \"GGUF\")");
        }
        const auto version = in_.read<std::uint32_t>("version");
        if (version == 1) in_.fail_at(4, "version", "GGUF v1 is not supported (v2 and v3 are)");
        if (version != 2 && version != 3) {
            const bool swapped = (version & 0xffffu) == 0 && (version >> 16) != 0;
            in_.fail_at(4, "version", "unsupported version {}{}", version,
                        swapped ? " (a big-endian file?)" : "");
        }
        file_.version_ = version;
        tensor_count_ = read_count("tensor count", 8 + 4 + 4 + 8);  // name, rank, type, offset
        kv_count_ = read_count("metadata count", 8 + 4 + 1);       // key, type, smallest value
    }

    // A count whose items each take at least `min_item_bytes`: more than fit is an error.
    std::uint64_t read_count(std::string_view field, std::size_t min_item_bytes) {
        const std::size_t at = in_.offset();
        const auto count = in_.read<std::uint64_t>(field);
        if (count > in_.remaining() / min_item_bytes) {
            in_.fail_at(at, field, "{} items cannot fit in the {} bytes left", count, in_.remaining());
        }
        return count;
    }

    void read_key_value(std::uint64_t index) {
        const std::size_t at = in_.offset();
        std::string key = in_.read_string(fmt::format("key of metadata entry {}", index));
        if (!keys_.insert(key).second) in_.fail_at(at, "metadata key", "duplicate key '{}'", key);
        const std::string field = fmt::format("metadata '{}'", key);
        const auto type = read_type(field);
        file_.metadata_.push_back({std::move(key), read_value(type, field, 0)});
    }

    ValueType read_type(std::string_view field) {
        const std::size_t at = in_.offset();
        const auto tag = in_.read<std::uint32_t>(field);
        if (!is_valid_value_type(tag)) in_.fail_at(at, field, "unknown value type {}", tag);
        return static_cast<ValueType>(tag);
    }

    Value read_value(ValueType type, std::string_view field, int depth) {
        switch (type) {
            case ValueType::U8: return in_.read<std::uint8_t>(field);
            case ValueType::I8: return in_.read<std::int8_t>(field);
            case ValueType::U16: return in_.read<std::uint16_t>(field);
            case ValueType::I16: return in_.read<std::int16_t>(field);
            case ValueType::U32: return in_.read<std::uint32_t>(field);
            case ValueType::I32: return in_.read<std::int32_t>(field);
            case ValueType::F32: return in_.read<float>(field);
            case ValueType::U64: return in_.read<std::uint64_t>(field);
            case ValueType::I64: return in_.read<std::int64_t>(field);
            case ValueType::F64: return in_.read<double>(field);
            case ValueType::Bool: return read_bool(field);
            case ValueType::String: return in_.read_string(field);
            case ValueType::Array: return read_array(field, depth);
        }
        in_.fail_at(in_.offset(), field, "unknown value type");
    }

    Value read_bool(std::string_view field) {
        const std::size_t at = in_.offset();
        const auto byte = in_.read<std::uint8_t>(field);
        // Only 0 and 1 round-trip through a bool; anything else is a corrupt file.
        if (byte > 1) in_.fail_at(at, field, "bool byte is {}, not 0 or 1", byte);
        return byte == 1;
    }

    Value read_array(std::string_view field, int depth) {
        if (depth >= kMaxArrayDepth) {
            in_.fail_at(in_.offset(), field, "arrays nested more than {} deep", kMaxArrayDepth);
        }
        Array array;
        array.element_type = read_type(field);
        const auto count = read_count(field, min_encoded_size(array.element_type));
        array.items.reserve(static_cast<std::size_t>(count));
        for (std::uint64_t i = 0; i < count; ++i) {
            array.items.push_back(read_value(array.element_type, field, depth + 1));
        }
        return array;
    }

    void read_alignment() {
        const Value* value = file_.find(kAlignmentKey);
        if (value == nullptr) return;
        const auto* alignment = value->get_if<std::uint32_t>();
        if (alignment == nullptr) {
            in_.fail_at(in_.offset(), "general.alignment", "has type {}, expected u32",
                        value_type_name(value->type()));
        }
        if (*alignment == 0 || (*alignment & (*alignment - 1)) != 0) {
            in_.fail_at(in_.offset(), "general.alignment", "{} is not a power of two", *alignment);
        }
        file_.alignment_ = *alignment;
    }

    void read_tensor_info(std::uint64_t index) {
        const std::size_t at = in_.offset();
        TensorInfo info;
        info.name = in_.read_string(fmt::format("name of tensor {}", index));
        if (!names_.insert(info.name).second) in_.fail_at(at, "tensor name", "duplicate tensor '{}'", info.name);
        const std::string field = fmt::format("tensor '{}'", info.name);
        read_dims(info, field);
        read_dtype(info, field);
        const std::size_t offset_at = in_.offset();
        info.offset = in_.read<std::uint64_t>(field + " offset");
        if (info.offset % file_.alignment_ != 0) {
            in_.fail_at(offset_at, field + " offset", "{} is not a multiple of the alignment {}", info.offset,
                        file_.alignment_);
        }
        file_.tensors_.push_back(std::move(info));
    }

    void read_dims(TensorInfo& info, const std::string& field) {
        const std::size_t at = in_.offset();
        const auto rank = in_.read<std::uint32_t>(field + " rank");
        if (rank > kMaxDims) in_.fail_at(at, field + " rank", "{} dimensions (at most {})", rank, kMaxDims);
        std::uint64_t numel = 1;
        for (std::uint32_t d = 0; d < rank; ++d) {
            const std::size_t dim_at = in_.offset();
            const auto dim = in_.read<std::uint64_t>(field + " dimension");
            const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
            if (dim > limit || (dim != 0 && numel > limit / dim)) {
                in_.fail_at(dim_at, field + " dimension", "{} overflows the element count", dim);
            }
            numel *= dim;
            info.dims.push_back(static_cast<std::int64_t>(dim));
        }
    }

    void read_dtype(TensorInfo& info, const std::string& field) {
        const std::size_t at = in_.offset();
        const auto id = in_.read<std::uint32_t>(field + " type");
        const auto dtype = id <= static_cast<std::uint32_t>(std::numeric_limits<int>::max())
                               ? dtype_from_ggml_type(static_cast<int>(id))
                               : std::nullopt;
        if (!dtype) in_.fail_at(at, field + " type", "unknown ggml type {}", id);
        info.dtype = *dtype;
        const auto traits = dtype_traits(*dtype);
        const std::int64_t row = info.dims.empty() ? 1 : info.dims[0];
        if (row % traits.block_size != 0) {
            in_.fail_at(at, field + " type", "{} elements per row is not a multiple of the {} block size {}", row,
                        traits.name, traits.block_size);
        }
        // numel fits in int64 (checked above); the byte count may still overflow.
        const auto blocks = static_cast<std::uint64_t>(info.numel()) / static_cast<std::uint64_t>(traits.block_size);
        if (blocks > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(traits.block_bytes)) {
            in_.fail_at(at, field + " type", "byte size overflows");
        }
        info.nbytes = blocks * static_cast<std::uint64_t>(traits.block_bytes);
    }

    void locate_data() {
        const std::uint64_t start = round_up(in_.offset(), file_.alignment_);
        if (file_.tensors_.empty()) {
            // ggml pads after the header even with no tensors; accept either.
            file_.data_offset_ = static_cast<std::size_t>(std::min<std::uint64_t>(start, in_.size()));
            return;
        }
        if (start > in_.size()) in_.fail_at(in_.offset(), "data section", "starts at byte {}, past the end", start);
        file_.data_offset_ = static_cast<std::size_t>(start);
        const std::uint64_t data_size = in_.size() - file_.data_offset_;
        for (const auto& info : file_.tensors_) {
            if (info.offset > data_size || info.nbytes > data_size - info.offset) {
                in_.fail_at(file_.data_offset_, fmt::format("tensor '{}' data", info.name),
                            "bytes [{}, {}) of the data section lie past its end ({} bytes)", info.offset,
                            info.offset + info.nbytes, data_size);
            }
        }
        reject_overlaps();
    }

    // Two tensors sharing bytes would alias: writing one (a quantizer, an in-place update)
    // would corrupt the other. ggml requires tensors to be packed in order; forge accepts any
    // order but no overlap. Empty tensors occupy nothing.
    void reject_overlaps() {
        std::vector<const TensorInfo*> by_offset;
        for (const auto& info : file_.tensors_)
            if (info.nbytes > 0) by_offset.push_back(&info);
        std::sort(by_offset.begin(), by_offset.end(),
                  [](const TensorInfo* a, const TensorInfo* b) { return a->offset < b->offset; });
        for (std::size_t i = 1; i < by_offset.size(); ++i) {
            const TensorInfo& before = *by_offset[i - 1];
            const TensorInfo& info = *by_offset[i];
            if (info.offset < before.offset + before.nbytes)
                in_.fail_at(file_.data_offset_, fmt::format("tensor '{}' data", info.name),
                            "bytes [{}, {}) overlap tensor '{}' at [{}, {})", info.offset, info.offset + info.nbytes,
                            before.name, before.offset, before.offset + before.nbytes);
        }
    }

    GgufFile& file_;
    ByteReader in_;
    std::uint64_t tensor_count_ = 0;
    std::uint64_t kv_count_ = 0;
    std::set<std::string, std::less<>> keys_;
    std::set<std::string, std::less<>> names_;
};

GgufFile GgufFile::parse(std::span<const std::byte> bytes, std::string source) {
    GgufFile file;
    file.bytes_ = bytes;
    file.source_ = std::move(source);
    Parser(file).parse();
    return file;
}

GgufFile GgufFile::open(const std::string& path) {
    auto mapping = MappedFile::open(path);
    GgufFile file = parse(mapping->bytes(), path);
    file.mapping_ = std::move(mapping);
    return file;
}

}  // namespace forge::gguf
