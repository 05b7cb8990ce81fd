// libFuzzer target for .nam files: JSON text through parsing, model construction and a
// short render. Any byte string must either play or throw forge::Error (FormatError for a
// bad file) — never crash, read out of bounds (ASan), hit undefined behaviour (UBSan) or
// allocate without bound.
#include "core/json.h"
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/nam_file.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const forge::nam::NamFile file = forge::nam::parse_nam(forge::parse_json(text, "fuzz.nam", forge::nam::kMaxJsonDepth),
                                                               "fuzz.nam");
        auto model = forge::nam::make_model(file);
        // Keep each run short: a model that asks for a long prewarm is legal but slow to fuzz.
        if (model->prewarm_samples() > 48000) return 0;
        forge::nam::Engine engine(std::move(model), 32);
        std::vector<float> in(100), out;
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
        out = forge::nam::render(engine, in);
    } catch (const forge::Error&) {
        // The expected outcome for a malformed or unsupported model.
    }
    return 0;
}
