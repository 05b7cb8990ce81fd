// The transducer half of a Parakeet RNN-T / TDT model (NeMo's RNNTDecoder and RNNTJoint), with
// NeMo's tensor names:
//
//   decoder.prediction.embed.weight              [V+1, H]   the previous token's embedding
//   decoder.prediction.dec_rnn.lstm.*_l{N}       PyTorch LSTM layers (nn/lstm.h: weight_ih,
//                                                weight_hh, bias_ih, bias_hh), gates i, f, g, o
//   joint.enc [J, d], joint.pred [J, H]          projections of encoder frame and prediction
//   joint.joint_net.2 [V+1 (+ durations), J]     out( relu(enc(f) + pred(g)) )
//
// The prediction network starts from a zero input and zero state (NeMo's start-of-sequence).
#pragma once

#include "core/tensor.h"
#include "models/asr/parakeet_config.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/lstm.h"
#include "nn/parameter_set.h"

#include <span>
#include <vector>

namespace forge::asr {

struct PredictionNetwork {
    using State = nn::Lstm::State;  // per layer, [1, H]

    std::int64_t hidden = 0;
    nn::Embedding embed;
    nn::Lstm lstm;  // input H, hidden H

    static PredictionNetwork make(nn::ParameterSet& params, const TransducerConfig& config, std::int64_t classes);
    // The LSTM's layers fused once for a whole decoding (nn::Lstm::fused).
    std::vector<nn::Lstm::Fused> fused() const { return lstm.fused(); }
    State start() const { return lstm.zero_state(1); }
    // The top layer's output g [1, H] after `token` (-1: the start input, zeros); steps `state`.
    Tensor step(std::int64_t token, State& state, std::span<const nn::Lstm::Fused> fused) const;
};

struct Joint {
    nn::Linear enc, pred, out;

    static Joint make(nn::ParameterSet& params, std::int64_t d_model, const TransducerConfig& config,
                      std::int64_t outputs);
    // enc_projected [.., J] (enc applied to encoder frames), g [.., H] -> logits [.., outputs]
    Tensor operator()(const Tensor& enc_projected, const Tensor& g) const;
};

}  // namespace forge::asr
