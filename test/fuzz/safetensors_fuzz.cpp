// libFuzzer target for safetensors checkpoints: any byte string must parse or throw
// forge::FormatError; a tensor is allocated only after its size is checked against the
// bytes that are there.
#include "core/checkpoint/safetensors.h"
#include "core/error.h"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        forge::checkpoint::Metadata metadata;
        forge::checkpoint::parse_safetensors(std::as_bytes(std::span(data, size)), "fuzz.safetensors", &metadata);
    } catch (const forge::FormatError&) {
        // The expected outcome for a malformed file.
    }
    return 0;
}
