#include "models/nam/train/trainable_lstm.h"

#include "core/autograd/ag.h"
#include "core/error.h"

#include <string>

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
    core_ = nn::Lstm::make(params_, "core", 1, h, spec_.num_layers);
    for (const nn::Lstm::Layer& layer : core_.layers) {
        for (const Tensor& b : {layer.bias_ih, layer.bias_hh}) {
            float* values = b.data<float>();
            for (std::int64_t k = 0; k < h; ++k) {
                values[k] -= kGateBiasShift;
                values[h + k] += kGateBiasShift;
            }
        }
    }
    initial_hidden_ = params_.add("initial_hidden", Shape{spec_.num_layers, h}, nn::Init::zeros());
    initial_cell_ = params_.add("initial_cell", Shape{spec_.num_layers, h}, nn::Init::zeros());
    const nn::Init init = nn::Init::fan_in_uniform(h);  // nn.Linear(H, 1): weight and bias U(±1/sqrt(H))
    head_ = nn::Linear::make(params_, "head", h, 1, init, init);
}

TrainableLstm::State TrainableLstm::initial_state(std::int64_t batch) const {
    const Shape shape{batch, spec_.hidden_size};
    State state;
    for (int l = 0; l < spec_.num_layers; ++l) {
        state.h.push_back(ag::broadcast_to(ag::unsqueeze(row(initial_hidden_, l), 0), shape));
        state.c.push_back(ag::broadcast_to(ag::unsqueeze(row(initial_cell_, l), 0), shape));
    }
    return state;
}

Tensor TrainableLstm::head(const Tensor& features) const { return ag::squeeze(head_(features), 2); }

Tensor TrainableLstm::forward_from(const Tensor& x, State& state) const {
    check(x.rank() == 2, "TrainableLstm: expected [batch, time], got rank {}", x.rank());
    return head(core_(ag::unsqueeze(x, 2), state));
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
    if (burn_in > 0) features.push_back(ag::detach(core_(ag::narrow(x3, 1, 0, burn_in), state)));
    for (std::int64_t start = burn_in; start < steps; start += spec_.train_truncate) {
        if (start > burn_in) {  // the burn-in's state is kept attached so that the initial state learns
            for (Tensor& h : state.h) h = ag::detach(h);
            for (Tensor& c : state.c) c = ag::detach(c);
        }
        const std::int64_t length = std::min<std::int64_t>(spec_.train_truncate, steps - start);
        features.push_back(core_(ag::narrow(x3, 1, start, length), state));
    }
    return head(features.size() == 1 ? features[0] : ag::concat(features, 1));
}

TrainableLstm::State TrainableLstm::exported_state(long samples) const {
    ag::NoGradScope no_grad;
    State state = core_.zero_state(1);
    core_(Tensor::zeros({1, samples, 1}), state);
    return state;
}

NamFile TrainableLstm::to_nam_file(double sample_rate) const {
    ag::NoGradScope no_grad;
    const State state = exported_state();
    std::vector<float> weights;
    const auto append = [&weights](const std::vector<float>& v) { weights.insert(weights.end(), v.begin(), v.end()); };
    const std::vector<nn::Lstm::Fused> fused = core_.fused();
    for (std::size_t l = 0; l < fused.size(); ++l) {
        append(values_of(fused[l].weight));
        append(values_of(fused[l].bias));
        append(values_of(state.h[l]));
        append(values_of(state.c[l]));
    }
    append(values_of(head_.weight));
    append(values_of(head_.bias));

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
