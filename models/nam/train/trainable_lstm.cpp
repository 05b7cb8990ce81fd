#include "models/nam/train/trainable_lstm.h"

#include "core/autograd/ag.h"
#include "core/error.h"

#include <fmt/format.h>

namespace forge::nam::train {
namespace {

// The reference's bias shift ("up the remembering"): input gate -2, forget gate +2.
constexpr float kGateBiasShift = 2.0f;

Tensor row(const Tensor& matrix, std::int64_t index) { return ag::select(matrix, 0, index); }

std::vector<float> values_of(const Tensor& t) { return t.contiguous().to_vector(); }

}  // namespace

TrainableLstm::TrainableLstm(LstmSpec spec, std::uint64_t seed) : TrainableModel(seed), spec_(spec) {
    check(spec_.num_layers > 0 && spec_.hidden_size > 0, "an LSTM needs at least one layer of positive size");
    const std::int64_t h = spec_.hidden_size;
    for (int l = 0; l < spec_.num_layers; ++l) {
        const std::int64_t input = l == 0 ? 1 : h;
        Layer layer;
        layer.w_ih = make_param(fmt::format("core.weight_ih_l{}", l), {4 * h, input});
        layer.w_hh = make_param(fmt::format("core.weight_hh_l{}", l), {4 * h, h});
        layer.b_ih = make_param(fmt::format("core.bias_ih_l{}", l), {4 * h});
        layer.b_hh = make_param(fmt::format("core.bias_hh_l{}", l), {4 * h});
        for (const Tensor& b : {layer.b_ih, layer.b_hh}) {
            float* values = b.data<float>();
            for (std::int64_t k = 0; k < h; ++k) {
                values[k] -= kGateBiasShift;
                values[h + k] += kGateBiasShift;
            }
        }
        layers_.push_back(layer);
    }
    initial_hidden_ = params_.add("initial_hidden", Shape{spec_.num_layers, h}, nn::Init::zeros());
    initial_cell_ = params_.add("initial_cell", Shape{spec_.num_layers, h}, nn::Init::zeros());
    head_w_ = make_param("head.weight", {1, h});  // nn.Linear(H, 1): U(±1/sqrt(fan_in)), fan_in = H
    head_b_ = make_param("head.bias", {1});
}

// nn.LSTM draws every parameter from U(±1/sqrt(H)); the head's fan-in is H too.
Tensor TrainableLstm::make_param(const std::string& name, const Shape& shape) {
    return params_.add(name, shape, nn::Init::fan_in_uniform(spec_.hidden_size));
}

std::pair<Tensor, Tensor> TrainableLstm::cell_weights(const Layer& layer) const {
    const Tensor parts[] = {layer.w_ih, layer.w_hh};
    return {ag::concat(parts, 1), ag::add(layer.b_ih, layer.b_hh)};
}

TrainableLstm::State TrainableLstm::initial_state(std::int64_t batch) const {
    const Shape shape{batch, spec_.hidden_size};
    State state;
    for (int l = 0; l < spec_.num_layers; ++l)
        state.emplace_back(ag::broadcast_to(ag::unsqueeze(row(initial_hidden_, l), 0), shape),
                           ag::broadcast_to(ag::unsqueeze(row(initial_cell_, l), 0), shape));
    return state;
}

Tensor TrainableLstm::run_layers(const Tensor& x3, State& state) const {
    const std::int64_t h = spec_.hidden_size, steps = x3.size(1);
    Tensor input = x3;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const auto [w, b] = cell_weights(layers_[l]);
        const Tensor states = ag::lstm_sequence(input, w, b, state[l].first, state[l].second);
        const Tensor last = ag::select(states, 1, steps - 1);  // [B, 2H]
        state[l] = {ag::narrow(last, 1, 0, h), ag::narrow(last, 1, h, h)};
        input = ag::narrow(states, 2, 0, h);
    }
    return input;
}

Tensor TrainableLstm::head(const Tensor& features) const {
    return ag::squeeze(ag::linear(features, head_w_, head_b_), 2);
}

Tensor TrainableLstm::forward_from(const Tensor& x, State& state) const {
    check(x.rank() == 2, "TrainableLstm: expected [batch, time], got rank {}", x.rank());
    return head(run_layers(ag::unsqueeze(x, 2), state));
}

Tensor TrainableLstm::forward(const Tensor& x) const {
    State state = initial_state(x.size(0));
    return forward_from(x, state);
}

// The reference's training pass (LSTM._forward with train_burn_in and train_truncate).
Tensor TrainableLstm::forward_train(const Tensor& x) const {
    check(x.rank() == 2, "TrainableLstm: expected [batch, time], got rank {}", x.rank());
    const Tensor x3 = ag::unsqueeze(x, 2);
    const std::int64_t steps = x3.size(1), burn_in = std::min<std::int64_t>(spec_.train_burn_in, steps);
    State state = initial_state(x.size(0));
    std::vector<Tensor> features;
    if (burn_in > 0) features.push_back(ag::detach(run_layers(ag::narrow(x3, 1, 0, burn_in), state)));
    for (std::int64_t start = burn_in; start < steps; start += spec_.train_truncate) {
        if (start > burn_in)  // the burn-in's state is kept attached so that the initial state learns
            for (auto& [h, c] : state) h = ag::detach(h), c = ag::detach(c);
        const std::int64_t length = std::min<std::int64_t>(spec_.train_truncate, steps - start);
        features.push_back(run_layers(ag::narrow(x3, 1, start, length), state));
    }
    return head(features.size() == 1 ? features[0] : ag::concat(features, 1));
}

TrainableLstm::State TrainableLstm::exported_state(long samples) const {
    ag::NoGradScope no_grad;
    State state;
    for (int l = 0; l < spec_.num_layers; ++l)
        state.emplace_back(Tensor::zeros({1, spec_.hidden_size}), Tensor::zeros({1, spec_.hidden_size}));
    run_layers(Tensor::zeros({1, samples, 1}), state);
    return state;
}

NamFile TrainableLstm::to_nam_file(double sample_rate) const {
    ag::NoGradScope no_grad;
    const State state = exported_state();
    std::vector<float> weights;
    const auto append = [&weights](const std::vector<float>& v) { weights.insert(weights.end(), v.begin(), v.end()); };
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const auto [w, b] = cell_weights(layers_[l]);
        append(values_of(w));
        append(values_of(b));
        append(values_of(state[l].first));
        append(values_of(state[l].second));
    }
    append(values_of(head_w_));
    append(values_of(head_b_));

    NamFile file;
    file.source = "trained LSTM";
    file.version = std::string(kLatestVersion);
    file.architecture = "LSTM";
    file.config = {{"input_size", 1}, {"hidden_size", spec_.hidden_size}, {"num_layers", spec_.num_layers}};
    file.weights = std::move(weights);
    file.sample_rate = sample_rate;
    return file;
}

}  // namespace forge::nam::train
