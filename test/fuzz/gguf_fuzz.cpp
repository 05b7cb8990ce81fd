// libFuzzer target for the GGUF reader (see docs/QUANTIZATION.md, "Fuzzing"). Any byte
// string must either parse or throw forge::FormatError — never crash, over-read (ASan),
// hit undefined behaviour (UBSan) or allocate beyond the input's size. A file that parses
// must also survive what forge does next: reading every tensor's bytes, decoding the
// formats forge knows, and writing it back — which must re-parse to the same contents.
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "core/quant/quantize.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

namespace {

void decode_small_tensors(const forge::gguf::GgufFile& file) {
    std::vector<float> values;
    for (const auto& info : file.tensors()) {
        // Bound the work per input; the decoders are exercised on the first few rows.
        const auto numel = static_cast<std::size_t>(info.numel());
        if (numel == 0 || numel > (1u << 16) || !forge::quant::can_decode(info.dtype)) continue;
        values.resize(numel);
        forge::quant::dequantize_bytes(info.dtype, file.tensor_bytes(info), values);
    }
}

void check_round_trip(const forge::gguf::GgufFile& file) {
    const auto bytes = forge::gguf::GgufWriter::copy_of(file).to_bytes();
    const auto again = forge::gguf::GgufFile::parse(bytes, "round trip");
    bool same = again.metadata().size() == file.metadata().size() && again.tensors().size() == file.tensors().size();
    for (std::size_t i = 0; same && i < file.metadata().size(); ++i) {
        same = again.metadata()[i].key == file.metadata()[i].key && again.metadata()[i].value == file.metadata()[i].value;
    }
    for (std::size_t i = 0; same && i < file.tensors().size(); ++i) {
        const auto a = file.tensor_bytes(file.tensors()[i]), b = again.tensor_bytes(again.tensors()[i]);
        same = a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }
    if (!same) std::abort();  // the writer lost or changed something: a bug, report it
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    try {
        const auto file = forge::gguf::GgufFile::parse(bytes, "fuzz");
        decode_small_tensors(file);
        check_round_trip(file);
    } catch (const forge::FormatError&) {
        // The expected outcome for malformed input.
    }
    return 0;
}
