#include "core/checkpoint/safetensors.h"

#include "core/checkpoint/atomic_file.h"
#include "core/error.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
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
    throw FormatError(fmt::format("safetensors tensor '{}' has unsupported dtype '{}'", tensor, name));
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
    std::vector<std::byte> file(8 + text.size() + offset);
    for (int i = 0; i < 8; ++i) file[static_cast<std::size_t>(i)] = std::byte((text.size() >> (8 * i)) & 0xff);
    std::memcpy(file.data() + 8, text.data(), text.size());
    std::byte* data = file.data() + 8 + text.size();
    for (const Tensor& t : payloads) {
        std::memcpy(data, t.raw_data(), t.nbytes());  // forge runs on little-endian hosts only
        data += t.nbytes();
    }
    write_file_atomically(path, file);
}

TensorMap read_safetensors(const std::filesystem::path& path, Metadata* metadata) {
    std::ifstream in(path, std::ios::binary);
    check(in.good(), "cannot open {}", path.string());
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 8) throw FormatError(fmt::format("{}: too short for a safetensors file", path.string()));
    const std::uint64_t header_size = read_u64_le(bytes.data());
    if (header_size > bytes.size() - 8) {
        throw FormatError(fmt::format("{}: header of {} bytes in a file of {}", path.string(), header_size, bytes.size()));
    }
    const auto header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header_size));
    const std::uint64_t data_start = 8 + header_size, data_size = bytes.size() - data_start;
    TensorMap tensors;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (metadata) *metadata = entry.get<Metadata>();
            continue;
        }
        Shape shape;
        for (const auto& d : entry.at("shape")) shape.push_back(d.get<std::int64_t>());
        const DType dtype = dtype_from_safetensors(entry.at("dtype").get<std::string>(), name);
        const auto begin = entry.at("data_offsets").at(0).get<std::uint64_t>();
        const auto end = entry.at("data_offsets").at(1).get<std::uint64_t>();
        Tensor t = Tensor::empty(shape, dtype);
        if (begin > end || end > data_size || end - begin != t.nbytes()) {
            throw FormatError(fmt::format("{}: tensor '{}' has data offsets [{}, {}) for {} bytes in a data section of {}",
                                          path.string(), name, begin, end, t.nbytes(), data_size));
        }
        std::memcpy(t.raw_data(), bytes.data() + data_start + begin, t.nbytes());
        tensors.emplace(name, std::move(t));
    }
    return tensors;
}

}  // namespace forge::checkpoint
