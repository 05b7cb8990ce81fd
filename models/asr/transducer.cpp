#include "models/asr/transducer.h"

#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/shape.h"

namespace forge::asr {

PredictionNetwork PredictionNetwork::make(nn::ParameterSet& params, const TransducerConfig& config,
                                          std::int64_t classes) {
    const std::int64_t h = config.pred_hidden;
    PredictionNetwork p;
    p.hidden = h;
    p.embed = nn::Embedding::make(params, "decoder.prediction.embed", classes, h, nn::Init::normal(1.0f));
    p.lstm = nn::Lstm::make(params, "decoder.prediction.dec_rnn.lstm", h, h, config.pred_rnn_layers);
    return p;
}

Tensor PredictionNetwork::step(std::int64_t token, State& state, std::span<const nn::Lstm::Fused> fused) const {
    const std::int64_t id[] = {token};
    const Tensor x = token < 0 ? Tensor::zeros(Shape{1, hidden})
                               : embed(Tensor::from(std::span<const std::int64_t>(id), Shape{1}));
    // One step of the sequence: [1, 1, H] -> [1, 1, H].
    return ag::select(lstm(ag::unsqueeze(x, 1), state, fused), 1, 0);
}

Joint Joint::make(nn::ParameterSet& params, std::int64_t d_model, const TransducerConfig& config, std::int64_t outputs) {
    const std::int64_t j = config.joint_hidden;
    return {nn::Linear::make(params, "joint.enc", d_model, j, nn::Init::fan_in_uniform(d_model), true),
            nn::Linear::make(params, "joint.pred", config.pred_hidden, j, nn::Init::fan_in_uniform(config.pred_hidden),
                             true),
            nn::Linear::make(params, "joint.joint_net.2", j, outputs, nn::Init::fan_in_uniform(j), true)};
}

Tensor Joint::operator()(const Tensor& enc_projected, const Tensor& g) const {
    return out(ag::relu(ag::add(enc_projected, pred(g))));
}

}  // namespace forge::asr
