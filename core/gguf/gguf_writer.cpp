#include "core/gguf/gguf_writer.h"

#include "core/checkpoint/atomic_file.h"

#include "core/error.h"

#include <algorithm>

namespace forge::gguf {

namespace {

// Where the bytes go: a file or a vector. Both count what they have written, which is all
// the layout needs (padding depends only on the running offset).
class VectorSink {
public:
    explicit VectorSink(std::vector<std::byte>& out) : out_(out) {}
    void write(std::span<const std::byte> bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }
    std::uint64_t written() const { return out_.size(); }

private:
    std::vector<std::byte>& out_;
};

// Into the temporary file of an atomic write, through a buffer: the header is many small
// writes (a vocabulary is hundreds of thousands of strings), each one system call unbuffered.
class FileSink {
public:
    explicit FileSink(checkpoint::TemporaryFile& file) : file_(file) { buffer_.reserve(kBufferBytes); }
    void write(std::span<const std::byte> bytes) {
        if (buffer_.size() + bytes.size() > kBufferBytes) flush();
        if (bytes.size() >= kBufferBytes) {
            file_.write(bytes);
        } else {
            buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
        }
        written_ += bytes.size();
    }
    std::uint64_t written() const { return written_; }
    void flush() {
        file_.write(buffer_);
        buffer_.clear();
    }

private:
    static constexpr std::size_t kBufferBytes = 1 << 20;
    checkpoint::TemporaryFile& file_;
    std::vector<std::byte> buffer_;
    std::uint64_t written_ = 0;
};

template <typename Sink, typename T>
void put(Sink& sink, T value) {
    sink.write(std::as_bytes(std::span<const T, 1>(&value, 1)));
}

template <typename Sink>
void put_string(Sink& sink, const std::string& text) {
    put<Sink, std::uint64_t>(sink, text.size());
    sink.write(std::as_bytes(std::span(text)));
}

template <typename Sink>
void put_value(Sink& sink, const Value& value) {
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                put_string(sink, v);
            } else if constexpr (std::is_same_v<T, Array>) {
                put<Sink, std::uint32_t>(sink, static_cast<std::uint32_t>(v.element_type));
                put<Sink, std::uint64_t>(sink, v.items.size());
                for (const auto& item : v.items) {
                    check(item.type() == v.element_type, "array of {} holds a {}", value_type_name(v.element_type),
                          value_type_name(item.type()));
                    put_value(sink, item);
                }
            } else if constexpr (std::is_same_v<T, bool>) {
                put<Sink, std::uint8_t>(sink, v ? 1 : 0);
            } else {
                put<Sink, T>(sink, v);
            }
        },
        value.storage());
}

template <typename Sink>
void pad(Sink& sink, std::uint32_t alignment) {
    static constexpr std::byte zeros[256] = {};
    while (sink.written() % alignment != 0) {
        const auto n = std::min<std::uint64_t>(alignment - sink.written() % alignment, sizeof zeros);
        sink.write(std::span(zeros, static_cast<std::size_t>(n)));
    }
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

void GgufWriter::set(const std::string& key, Value value) {
    const auto [at, added] = key_index_.try_emplace(key, metadata_.size());
    if (added) metadata_.push_back({key, std::move(value)});
    else metadata_[at->second].value = std::move(value);
}

void GgufWriter::remove(const std::string& key) {
    const auto at = key_index_.find(key);
    if (at == key_index_.end()) return;
    const std::size_t removed = at->second;
    key_index_.erase(at);
    metadata_.erase(metadata_.begin() + static_cast<std::ptrdiff_t>(removed));
    for (auto& [name, index] : key_index_) {
        if (index > removed) --index;  // shifted left by the erase
    }
}

void GgufWriter::add_tensor(std::string name, DType dtype, std::vector<std::int64_t> dims, Producer produce) {
    check(dims.size() <= static_cast<std::size_t>(kMaxDims), "tensor '{}': {} dimensions (GGUF allows {})", name,
          dims.size(), kMaxDims);
    check(!tensor_names_.contains(name), "duplicate tensor '{}'", name);
    TensorInfo info;
    info.name = std::move(name);
    info.dtype = dtype;
    info.dims = std::move(dims);
    const auto traits = dtype_traits(dtype);
    check(traits.ggml_type >= 0, "tensor '{}': dtype {} has no GGUF id", info.name, traits.name);
    const std::int64_t row = info.dims.empty() ? 1 : info.dims[0];
    check(row % traits.block_size == 0, "tensor '{}': {} elements per row is not a multiple of the {} block size {}",
          info.name, row, traits.name, traits.block_size);
    info.nbytes = dtype_bytes(dtype, static_cast<std::size_t>(info.numel()));
    tensor_names_.insert(info.name);
    tensors_.push_back({std::move(info), std::move(produce)});
}

void GgufWriter::add_tensor(std::string name, DType dtype, std::vector<std::int64_t> dims,
                            std::span<const std::byte> data) {
    add_tensor(std::move(name), dtype, std::move(dims), [data](std::span<std::byte> out) {
        check(out.size() == data.size(), "tensor data has {} bytes, expected {}", data.size(), out.size());
        std::copy(data.begin(), data.end(), out.begin());
    });
}

std::uint32_t GgufWriter::alignment() const {
    for (const auto& kv : metadata_) {
        if (kv.key == kAlignmentKey) {
            const auto* a = kv.value.get_if<std::uint32_t>();
            check(a != nullptr && *a != 0 && (*a & (*a - 1)) == 0, "general.alignment must be a power-of-two u32");
            return *a;
        }
    }
    return kDefaultAlignment;
}

template <typename Sink>
void GgufWriter::emit(Sink& sink) const {
    const std::uint32_t align = alignment();
    sink.write(std::as_bytes(std::span("GGUF", 4)));
    put<Sink, std::uint32_t>(sink, version_);
    put<Sink, std::uint64_t>(sink, tensors_.size());
    put<Sink, std::uint64_t>(sink, metadata_.size());
    for (const auto& kv : metadata_) {
        put_string(sink, kv.key);
        put<Sink, std::uint32_t>(sink, static_cast<std::uint32_t>(kv.value.type()));
        put_value(sink, kv.value);
    }
    // Offsets are packed in order, each tensor padded to the alignment (as ggml does).
    std::uint64_t offset = 0;
    for (const auto& t : tensors_) {
        put_string(sink, t.info.name);
        put<Sink, std::uint32_t>(sink, static_cast<std::uint32_t>(t.info.dims.size()));
        for (const auto d : t.info.dims) put<Sink, std::uint64_t>(sink, static_cast<std::uint64_t>(d));
        put<Sink, std::uint32_t>(sink, static_cast<std::uint32_t>(dtype_traits(t.info.dtype).ggml_type));
        put<Sink, std::uint64_t>(sink, offset);
        offset += round_up(t.info.nbytes, align);
    }
    pad(sink, align);
    std::vector<std::byte> buffer;
    for (const auto& t : tensors_) {
        buffer.assign(static_cast<std::size_t>(t.info.nbytes), std::byte{0});
        t.produce(buffer);
        sink.write(buffer);
        pad(sink, align);
    }
}

std::vector<std::byte> GgufWriter::to_bytes() const {
    std::vector<std::byte> out;
    VectorSink sink(out);
    emit(sink);
    return out;
}

void GgufWriter::write(const std::string& path) const {
    checkpoint::TemporaryFile temporary(path);
    FileSink sink(temporary);
    emit(sink);
    sink.flush();
    temporary.commit();
}

GgufWriter GgufWriter::copy_of(const GgufFile& file) {
    GgufWriter writer(file.version());
    for (const auto& kv : file.metadata()) writer.set(kv.key, kv.value);
    for (const auto& info : file.tensors()) {
        writer.add_tensor(info.name, info.dtype, info.dims, file.tensor_bytes(info));
    }
    return writer;
}

}  // namespace forge::gguf
