#include "models/asr/transducer.h"

#include "core/autograd/ops/lstm.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/shape.h"

#include <string>

namespace forge::asr {

PredictionNetwork PredictionNetwork::make(nn::ParameterSet& params, const TransducerConfig& config,
                                          std::int64_t classes) {
    const std::int64_t h = config.pred_hidden;
    PredictionNetwork p;
    p.hidden = h;
    p.embed = nn::Embedding::make(params, "decoder.prediction.embed", classes, h, nn::Init::normal(1.0f));
    const nn::Init init = nn::Init::fan_in_uniform(h);  // PyTorch's LSTM: U(-1/sqrt(H), 1/sqrt(H))
    for (std::int64_t l = 0; l < config.pred_rnn_layers; ++l) {
        const std::string name = "decoder.prediction.dec_rnn.lstm.", suffix = "_l" + std::to_string(l);
        p.layers.push_back({params.add(name + "weight_ih" + suffix, Shape{4 * h, h}, init),
                            params.add(name + "weight_hh" + suffix, Shape{4 * h, h}, init),
                            params.add(name + "bias_ih" + suffix, Shape{4 * h}, init),
                            params.add(name + "bias_hh" + suffix, Shape{4 * h}, init)});
    }
    return p;
}

std::vector<PredictionNetwork::Fused> PredictionNetwork::fused() const {
    std::vector<Fused> out;
    for (const Layer& layer : layers) {
        const Tensor parts[] = {layer.w_ih, layer.w_hh};
        out.push_back({ag::concat(parts, 1), ag::add(layer.b_ih, layer.b_hh)});
    }
    return out;
}

PredictionNetwork::State PredictionNetwork::start() const {
    State s;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        s.h.push_back(Tensor::zeros(Shape{1, hidden}));
        s.c.push_back(Tensor::zeros(Shape{1, hidden}));
    }
    return s;
}

Tensor PredictionNetwork::step(std::int64_t token, State& state, const std::vector<Fused>& weights) const {
    const std::int64_t id[] = {token};
    Tensor x = token < 0 ? Tensor::zeros(Shape{1, hidden}) : embed(Tensor::from(std::span<const std::int64_t>(id), Shape{1}));
    for (std::size_t l = 0; l < layers.size(); ++l) {
        // One step of the sequence op: [1, 1, in] -> states [1, 1, 2H] = (h, c).
        const Tensor states = ag::lstm_sequence(ag::unsqueeze(x, 1), weights[l].w, weights[l].b, state.h[l], state.c[l]);
        const Tensor last = ag::select(states, 1, 0);  // [1, 2H]
        state.h[l] = ag::narrow(last, 1, 0, hidden);
        state.c[l] = ag::narrow(last, 1, hidden, hidden);
        x = state.h[l];
    }
    return x;
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
