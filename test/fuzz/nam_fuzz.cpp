// libFuzzer target for .nam files: JSON text through parsing, model construction and a
// short render. Any byte string must either play or throw forge::Error (FormatError for a
// bad file) — never crash, read out of bounds (ASan), hit undefined behaviour (UBSan) or
// allocate without bound.
#include "core/json.h"
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/nam_file.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

// A model that looks back further is legal, but its state may take up to a GiB to allocate
// and clear: it is built, not rendered, to keep each execution short.
constexpr long kMaxRenderedPrewarm = 48000;
// Prewarm runs the code the render runs, on zeros, for as many samples as the model asks, and
// under the sanitizers that was nearly all of an execution: 0.45-1.1 s for the nano WaveNet
// (4 093 samples) and the LSTM (24 000 at 48 kHz) seeds. A model that asks for more than this
// is rendered straight after prepare(), without the engine's prewarm.
constexpr long kMaxFuzzPrewarm = 512;
// The render: ten blocks of 32 and a partial one. Past eight blocks, so a convolution whose
// history is under 256 frames rewinds its delay line (CausalConv::input_block) even without
// a prewarm.
constexpr int kBlock = 32;
constexpr std::size_t kRenderSamples = 330;

std::vector<float> test_signal() {
    std::vector<float> in(kRenderSamples);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 7) * 0.1f - 0.3f;
    return in;
}

void render_without_prewarm(forge::nam::Model& model, const std::vector<float>& in) {
    model.prepare(kBlock);
    std::vector<float> out(in.size());
    for (std::size_t at = 0; at < in.size(); at += kBlock) {
        const int n = static_cast<int>(std::min<std::size_t>(kBlock, in.size() - at));
        model.process({in.data() + at, n}, {out.data() + at, n}, n);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::vector<float> in = test_signal();
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const forge::nam::NamFile file = forge::nam::parse_nam(forge::parse_json(text, "fuzz.nam", forge::nam::kMaxJsonDepth),
                                                               "fuzz.nam");
        auto model = forge::nam::make_model(file);
        if (model->prewarm_samples() > kMaxRenderedPrewarm) return 0;
        if (model->prewarm_samples() > kMaxFuzzPrewarm) {
            if (model->in_channels() == 1 && model->out_channels() == 1) render_without_prewarm(*model, in);
            return 0;
        }
        forge::nam::Engine engine(std::move(model), kBlock);
        (void)forge::nam::render(engine, in);
    } catch (const forge::Error&) {
        // The expected outcome for a malformed or unsupported model.
    }
    return 0;
}
