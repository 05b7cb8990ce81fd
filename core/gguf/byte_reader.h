// A bounds-checked little-endian cursor over untrusted bytes. Every read names the field it
// reads, so a truncated or malformed file fails with "<source>: <field> at byte <offset>: ..."
// instead of reading past the end.
#pragma once

#include "core/error.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace forge::gguf {

class ByteReader {
public:
    ByteReader(std::span<const std::byte> bytes, std::string_view source) : bytes_(bytes), source_(source) {}

    std::size_t offset() const { return offset_; }
    std::size_t remaining() const { return bytes_.size() - offset_; }
    std::size_t size() const { return bytes_.size(); }
    std::string_view source() const { return source_; }

    // A fixed-size little-endian integer or float.
    template <typename T>
        requires std::is_arithmetic_v<T>
    T read(std::string_view field) {
        static_assert(std::endian::native == std::endian::little, "GGUF readers assume a little-endian host");
        require(sizeof(T), field);
        T value;
        std::memcpy(&value, bytes_.data() + offset_, sizeof(T));
        offset_ += sizeof(T);
        return value;
    }

    // `count` raw bytes, in place (no copy).
    std::span<const std::byte> read_bytes(std::uint64_t count, std::string_view field) {
        require(count, field);
        const auto out = bytes_.subspan(offset_, static_cast<std::size_t>(count));
        offset_ += static_cast<std::size_t>(count);
        return out;
    }

    // A GGUF string: u64 length, then that many bytes (not NUL-terminated).
    std::string read_string(std::string_view field) {
        const std::size_t at = offset_;
        const auto length = read<std::uint64_t>(field);
        if (length > remaining()) {
            fail_at(at, field, "string length {} exceeds the {} bytes left in the file", length, remaining());
        }
        const auto chars = read_bytes(length, field);
        return {reinterpret_cast<const char*>(chars.data()), chars.size()};
    }

    void skip_to(std::size_t offset, std::string_view field) {
        if (offset < offset_ || offset > bytes_.size()) {
            fail_at(offset_, field, "cannot move to byte {} (file has {} bytes)", offset, bytes_.size());
        }
        offset_ = offset;
    }

    // Throw a FormatError naming the source, field and byte offset.
    template <typename... Args>
    [[noreturn]] void fail_at(std::size_t at, std::string_view field, fmt::format_string<Args...> format,
                              Args&&... args) const {
        fail_format("{}: {} at byte {}: {}", source_, field, at,
                    fmt::format(format, std::forward<Args>(args)...));
    }

private:
    void require(std::uint64_t count, std::string_view field) const {
        if (count > remaining()) {
            fail_at(offset_, field, "needs {} bytes but the file ends after {} (truncated?)", count, remaining());
        }
    }

    std::span<const std::byte> bytes_;
    std::string_view source_;
    std::size_t offset_ = 0;
};

}  // namespace forge::gguf
