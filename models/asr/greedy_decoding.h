// Greedy decoding of encoder frames into token ids, each with the encoder frame it was emitted
// at (word timestamps come from these).
//
// CTC: the best class of every frame; repeats collapse, then blanks drop.
// RNN-T / TDT: at frame t the joint of (frame t, prediction state) picks a token k and, for TDT,
// a duration d (RNN-T: d = 0 after a token, 1 after a blank). A token is emitted and steps the
// prediction network. Decoding then moves d frames on when d > 0; one frame after a blank (a
// TDT blank of duration 0 would only repeat itself) or after max_symbols tokens at one frame;
// otherwise it stays at t. NeMo's greedy RNN-T and TDT decoders take the same path.
#pragma once

#include "core/tensor.h"
#include "models/asr/transducer.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::asr {

struct Hypothesis {
    std::vector<std::int64_t> tokens;
    std::vector<std::int64_t> frames;  // the encoder frame of each token
};

// logits [T, V+1] -> tokens; `blank` is V.
Hypothesis ctc_greedy(const Tensor& logits, std::int64_t blank);

struct TransducerDecoding {
    std::int64_t blank = 0;
    std::span<const std::int64_t> durations;  // empty: RNN-T
    std::int64_t max_symbols = 10;           // tokens per frame at most
};

// encoded [T, d_model] -> tokens, through the prediction network and joint.
Hypothesis transducer_greedy(const Tensor& encoded, const PredictionNetwork& prediction, const Joint& joint,
                             const TransducerDecoding& options);

}  // namespace forge::asr
