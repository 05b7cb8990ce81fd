#include "models/asr/greedy_decoding.h"

#include "core/autograd/ops/shape.h"
#include "core/error.h"

namespace forge::asr {
namespace {

// The first index of the largest value (torch.argmax's choice among ties).
std::int64_t argmax(const float* values, std::int64_t n) {
    std::int64_t best = 0;
    for (std::int64_t i = 1; i < n; ++i)
        if (values[i] > values[best]) best = i;
    return best;
}

}  // namespace

Hypothesis ctc_greedy(const Tensor& logits_in, std::int64_t blank) {
    const Tensor logits = logits_in.contiguous();
    check(logits.rank() == 2 && logits.size(1) == blank + 1, "ctc: expected logits [T, {}], got {}", blank + 1,
          logits.shape().to_string());
    Hypothesis h;
    std::int64_t previous = blank;
    const float* row = logits.data<float>();
    for (std::int64_t t = 0; t < logits.size(0); ++t, row += blank + 1) {
        const std::int64_t k = argmax(row, blank + 1);
        if (k != blank && k != previous) {
            h.tokens.push_back(k);
            h.frames.push_back(t);
        }
        previous = k;
    }
    return h;
}

Hypothesis transducer_greedy(const Tensor& encoded, const PredictionNetwork& prediction, const Joint& joint,
                             const TransducerDecoding& options) {
    const std::int64_t classes = options.blank + 1;
    const std::int64_t outputs = classes + static_cast<std::int64_t>(options.durations.size());
    check(options.max_symbols >= 1, "transducer: max symbols per frame must be >= 1, got {}", options.max_symbols);
    check(joint.out.weight.size(0) == outputs, "transducer: the joint has {} outputs, expected {} classes + {} durations",
          joint.out.weight.size(0), classes, options.durations.size());
    const Tensor frames = joint.enc(encoded).contiguous();  // [T, J], each frame projected once
    const auto fused = prediction.fused();
    PredictionNetwork::State state = prediction.start();
    Tensor g = prediction.step(-1, state, fused);
    Hypothesis h;
    std::int64_t emitted = 0;
    for (std::int64_t t = 0; t < frames.size(0);) {
        const Tensor z = joint(ag::narrow(frames, 0, t, 1), g).contiguous();  // [1, outputs]
        const float* logits = z.data<float>();
        const std::int64_t k = argmax(logits, classes);
        std::int64_t skip = k == options.blank ? 1 : 0;
        if (!options.durations.empty()) {
            skip = options.durations[static_cast<std::size_t>(argmax(logits + classes, outputs - classes))];
        }
        if (k != options.blank) {
            h.tokens.push_back(k);
            h.frames.push_back(t);
            ++emitted;
            g = prediction.step(k, state, fused);
        }
        if (skip == 0 && (k == options.blank || emitted == options.max_symbols)) skip = 1;
        if (skip > 0) {
            t += skip;
            emitted = 0;
        }
    }
    return h;
}

}  // namespace forge::asr
