// The transducer half of a Parakeet RNN-T / TDT model (NeMo's RNNTDecoder and RNNTJoint), with
// NeMo's tensor names:
//
//   decoder.prediction.embed.weight              [V+1, H]   the previous token's embedding
//   decoder.prediction.dec_rnn.lstm.*_l{N}       PyTorch LSTM layers (weight_ih, weight_hh,
//                                                bias_ih, bias_hh), gate order i, f, g, o
//   joint.enc [J, d], joint.pred [J, H]          projections of encoder frame and prediction
//   joint.joint_net.2 [V+1 (+ durations), J]     out( relu(enc(f) + pred(g)) )
//
// The prediction network starts from a zero input and zero state (NeMo's start-of-sequence).
#pragma once

#include "core/tensor.h"
#include "models/asr/parakeet_config.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/parameter_set.h"

#include <vector>

namespace forge::asr {

struct PredictionNetwork {
    struct Layer {
        Tensor w_ih, w_hh, b_ih, b_hh;  // [4H, in], [4H, H], [4H], [4H]
    };
    // One layer as the LSTM op takes it: W = [w_ih | w_hh] [4H, in + H], b = b_ih + b_hh.
    struct Fused {
        Tensor w, b;
    };
    struct State {
        std::vector<Tensor> h, c;  // per layer, [1, H]
    };

    std::int64_t hidden = 0;
    nn::Embedding embed;
    std::vector<Layer> layers;

    static PredictionNetwork make(nn::ParameterSet& params, const TransducerConfig& config, std::int64_t classes);
    std::vector<Fused> fused() const;  // differentiable (ag::concat, ag::add)
    State start() const;
    // The top layer's output g [1, H] after `token` (-1: the start input, zeros); steps `state`.
    Tensor step(std::int64_t token, State& state, const std::vector<Fused>& fused) const;
};

struct Joint {
    nn::Linear enc, pred, out;

    static Joint make(nn::ParameterSet& params, std::int64_t d_model, const TransducerConfig& config,
                      std::int64_t outputs);
    // enc_projected [.., J] (enc applied to encoder frames), g [.., H] -> logits [.., outputs]
    Tensor operator()(const Tensor& enc_projected, const Tensor& g) const;
};

}  // namespace forge::asr
