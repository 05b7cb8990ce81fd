#include "core/checkpoint/safetensors.h"

#include "core/checkpoint/atomic_file.h"
#include "core/checked_math.h"
#include "core/error.h"
#include "core/json.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstring>
#include <fstream>
#include <optional>
#include <span>
#include <vector>

namespace forge::checkpoint {
namespace {

// safetensors dtype names for the plain dtypes forge stores.
const char* safetensors_dtype(DType dtype) {
    switch (dtype) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
        case DType::F64: return "F64";
        case DType::I8: return "I8";
        case DType::I16: return "I16";
        case DType::I32: return "I32";
        case DType::I64: return "I64";
        case DType::U8: return "U8";
        case DType::Q4_0: case DType::Q4_1: case DType::Q5_0: case DType::Q5_1: case DType::Q8_0: case DType::Q8_1:
        case DType::Q2_K: case DType::Q3_K: case DType::Q4_K: case DType::Q5_K: case DType::Q6_K: case DType::Q8_K:
        case DType::IQ2_XXS: case DType::IQ2_XS: case DType::IQ3_XXS: case DType::IQ1_S: case DType::IQ4_NL:
        case DType::IQ3_S: case DType::IQ2_S: case DType::IQ4_XS: case DType::IQ1_M: case DType::TQ1_0:
        case DType::TQ2_0: case DType::MXFP4: break;  // block formats
    }
    fail("safetensors cannot store dtype {}", dtype_name(dtype));
}

DType dtype_from_safetensors(const std::string& name, const std::string& tensor) {
    for (DType d : {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I8, DType::I16, DType::I32, DType::I64,
                    DType::U8}) {
        if (name == safetensors_dtype(d)) return d;
    }
    fail_format("safetensors tensor '{}' has unsupported dtype '{}'", tensor, name);
}

std::uint64_t read_u64_le(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

}  // namespace

void write_safetensors(const std::filesystem::path& path, const TensorMap& tensors, const Metadata& metadata) {
    nlohmann::json header = nlohmann::json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::vector<Tensor> payloads;
    std::uint64_t offset = 0;
    for (const auto& [name, tensor] : tensors) {  // std::map: sorted names, as safetensors writes them
        const Tensor t = tensor.contiguous();
        const std::vector<std::int64_t> shape(t.shape().begin(), t.shape().end());
        header[name] = {{"dtype", safetensors_dtype(t.dtype())},
                        {"shape", shape},
                        {"data_offsets", {offset, offset + t.nbytes()}}};
        offset += t.nbytes();
        payloads.push_back(t);
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // the data section starts 8-byte aligned
    std::array<std::byte, 8> length{};
    for (int i = 0; i < 8; ++i) length[static_cast<std::size_t>(i)] = std::byte((text.size() >> (8 * i)) & 0xff);
    // Written piece by piece, not gathered into one buffer first: a LoRA checkpoint's factors
    // and AdamW moments are 120 MB, which a copy would add to the run's peak memory.
    TemporaryFile file(path);
    file.write(length);
    file.write(std::as_bytes(std::span(text.data(), text.size())));
    for (const Tensor& t : payloads)
        file.write(std::span(t.raw_data(), t.nbytes()));  // forge runs on little-endian hosts only
    file.commit();
}

namespace {

// A tensor's entry in the header, checked against the data section before anything is
// allocated: its shape's byte count (64-bit, overflow-checked) must equal its offsets' span.
Tensor read_tensor(const nlohmann::json& entry, const std::string& name, std::span<const std::byte> data,
                   const std::string& source) {
    auto bad = [&](const std::string& what) {
        return FormatError(fmt::format("{}: tensor '{}': {}", source, name, what));
    };
    if (!entry.is_object() || !entry.contains("shape") || !entry.contains("dtype") || !entry.contains("data_offsets"))
        throw bad("needs shape, dtype and data_offsets");
    const auto& dims = entry["shape"];
    const auto& offsets = entry["data_offsets"];
    if (!dims.is_array() || dims.size() > 16) throw bad("shape must be a list of at most 16 sizes");
    if (!entry["dtype"].is_string()) throw bad("dtype must be a string");
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
        throw bad("data_offsets must be two non-negative integers");
    const DType dtype = dtype_from_safetensors(entry["dtype"].get<std::string>(), name);
    Shape shape;
    std::optional<std::int64_t> bytes = dtype_traits(dtype).block_bytes;
    for (const auto& d : dims) {
        if (!d.is_number_unsigned() || d.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
            throw bad("shape sizes must be non-negative integers");
        const auto size = d.get<std::int64_t>();
        shape.push_back(size);
        if (bytes) bytes = checked_mul(*bytes, size);
    }
    const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
    if (!bytes || begin > end || end > data.size() || end - begin != static_cast<std::uint64_t>(*bytes))
        throw bad(fmt::format("data offsets [{}, {}) do not hold its shape's bytes in a data section of {}", begin, end,
                              data.size()));
    Tensor t = Tensor::empty(shape, dtype);
    std::memcpy(t.raw_data(), data.data() + begin, t.nbytes());
    return t;
}

}  // namespace

TensorMap parse_safetensors(std::span<const std::byte> bytes, const std::string& source, Metadata* metadata) {
    if (bytes.size() < 8) fail_format("{}: too short for a safetensors file", source);
    const std::uint64_t header_size = read_u64_le(reinterpret_cast<const unsigned char*>(bytes.data()));
    if (header_size > bytes.size() - 8) {
        fail_format("{}: header of {} bytes in a file of {}", source, header_size, bytes.size());
    }
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, header_size);
    const auto header = parse_json(text, source, kMaxHeaderDepth);
    if (!header.is_object()) fail_format("{}: the header is not a JSON object", source);
    const auto data = bytes.subspan(8 + header_size);
    TensorMap tensors;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object()) fail_format("{}: __metadata__ is not an object", source);
            for (const auto& [key, value] : entry.items())
                if (!value.is_string()) fail_format("{}: __metadata__.{} is not a string", source, key);
            if (metadata) *metadata = entry.get<Metadata>();
            continue;
        }
        tensors.emplace(name, read_tensor(entry, name, data, source));
    }
    return tensors;
}

TensorMap read_safetensors(const std::filesystem::path& path, Metadata* metadata) {
    std::ifstream in(path, std::ios::binary);
    check(in.good(), "cannot open {}", path.string());
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse_safetensors(std::as_bytes(std::span(bytes)), path.string(), metadata);
}

}  // namespace forge::checkpoint
