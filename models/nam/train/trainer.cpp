#include "models/nam/train/trainer.h"

#include "core/autograd/ag.h"
#include "core/error.h"
#include "core/optim/adam.h"
#include "core/optim/schedule.h"
#include "core/random/counter_rng.h"
#include "core/random/shuffle.h"
#include "models/nam/train/trainable_lstm.h"
#include "models/nam/train/trainable_wavenet.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace forge::nam::train {
namespace {

// The stream of the window order, apart from the parameters' (nn::parameter_key hashes names).
constexpr std::uint64_t kWindowOrderStream = 0x6f72646572ull;  // "order"

// One batch: inputs [B, rf + ny - 1] and targets [B, ny] from the given window starts.
std::pair<Tensor, Tensor> make_batch(const Segment& s, std::span<const long> starts, long rf, long ny) {
    const long nx = rf + ny - 1;
    std::vector<float> x, y;
    x.reserve(starts.size() * static_cast<std::size_t>(nx));
    y.reserve(starts.size() * static_cast<std::size_t>(ny));
    for (long start : starts) {
        x.insert(x.end(), s.x.begin() + start, s.x.begin() + start + nx);
        y.insert(y.end(), s.y.begin() + start + rf - 1, s.y.begin() + start + nx);
    }
    const auto b = static_cast<std::int64_t>(starts.size());
    return {Tensor::from(std::span<const float>(x), {b, nx}), Tensor::from(std::span<const float>(y), {b, ny})};
}

// ESR of the model over a whole segment, every output that has a full receptive field.
double validation_esr(const TrainableModel& model, const Segment& s) {
    ag::NoGradScope no_grad;
    const auto n = static_cast<std::int64_t>(s.x.size());
    const Tensor out = model.forward(Tensor::from(std::span<const float>(s.x), {1, n})).contiguous();
    const auto prediction = out.span<float>();
    return esr(prediction, std::span<const float>(s.y).subspan(static_cast<std::size_t>(model.receptive_field() - 1)));
}

// The outputs the loss sees: all but the first mask_first of each window.
Tensor unmasked(const Tensor& y, long mask_first) {
    return mask_first > 0 ? ag::narrow(y, 1, mask_first, y.size(1) - mask_first) : y;
}

// Every parameter's values (a state dict of copies), to keep the best epoch and put it back.
checkpoint::TensorMap snapshot(const nn::ParameterSet& params) {
    checkpoint::TensorMap values;
    for (const auto& [name, value] : params.state_dict()) values[name] = value.clone();
    return values;
}

long steps_per_epoch(const TrainableModel& model, const TrainingData& data, const TrainOptions& o) {
    const std::size_t windows = window_starts(data.train, model.receptive_field(), o.ny).size();
    const long steps = static_cast<long>(windows) / o.batch;  // drop_last, as the reference
    check(steps > 0, "the training segment holds {} windows of {} samples, fewer than one batch of {}", windows, o.ny,
          o.batch);
    return steps;
}

// The learning rate of every step when the schedule is per step (cosine), else none.
std::optional<optim::WarmupCosine> step_schedule(const TrainOptions& o, long steps_per_epoch) {
    if (o.schedule != LrSchedule::Cosine) return std::nullopt;
    const long total = steps_per_epoch * o.epochs;
    return optim::WarmupCosine{.peak = o.lr, .warmup = std::min<long>(o.warmup_steps, total / 2), .total = total};
}

struct EpochLoss {
    double mean;   // over the steps run
    bool stopped;  // cb.stop_requested ended the epoch early
};

EpochLoss run_epoch(TrainableModel& model, optim::Adam& adam, const TrainingData& data, const TrainOptions& o,
                    const TrainingLoss& loss_fn, int epoch, const TrainCallbacks& cb) {
    std::vector<long> starts = window_starts(data.train, model.receptive_field(), o.ny);
    // Each epoch's order from (seed, epoch) alone: the same on any standard library.
    random::shuffle(std::span(starts), random::stream_key(o.seed, kWindowOrderStream, static_cast<std::uint64_t>(epoch)));
    const long steps = steps_per_epoch(model, data, o);
    const std::optional<optim::WarmupCosine> schedule = step_schedule(o, steps);
    double total = 0.0;
    for (long step = 0; step < steps; ++step) {
        const auto [x, y] = make_batch(data.train, std::span<const long>(starts).subspan(static_cast<std::size_t>(step * o.batch), static_cast<std::size_t>(o.batch)),
                                       model.receptive_field(), o.ny);
        const Tensor loss = loss_fn(unmasked(model.forward_train(x), o.mask_first), unmasked(y, o.mask_first));
        const double value = loss.contiguous().span<float>()[0];
        ag::backward(loss);
        if (schedule) adam.set_lr(schedule->at((epoch - 1) * steps + step));
        adam.step();
        adam.zero_grad();
        total += value;
        if (cb.on_step) cb.on_step({epoch, o.epochs, step + 1, steps, value});
        if (step + 1 < steps && cb.stop_requested && cb.stop_requested()) return {total / static_cast<double>(step + 1), true};
    }
    return {total / static_cast<double>(steps), false};
}

}  // namespace

TrainOptions reference_options(Architecture architecture, Preset preset) {
    TrainOptions o;
    o.architecture = architecture;
    o.preset = preset;
    if (architecture == Architecture::Lstm) {  // core.py's LSTM model config
        o.lr = 0.01f;
        o.lr_decay = 0.005f;
        o.mask_first = 4096;
        o.loss.pre_emphasis_mse_weight = 1.0f;
    }
    return o;
}

std::unique_ptr<TrainableModel> make_trainable_model(const TrainOptions& o) {
    if (o.architecture == Architecture::Lstm) return std::make_unique<TrainableLstm>(lstm_preset(o.preset), o.seed);
    return std::make_unique<TrainableWaveNet>(wavenet_preset(o.preset), o.seed);
}

TrainResult train_model(const TrainingData& data, const TrainOptions& o, const TrainCallbacks& cb) {
    const std::unique_ptr<TrainableModel> model = make_trainable_model(o);
    return train_model(*model, data, o, cb);
}

TrainResult train_model(TrainableModel& model, const TrainingData& data, const TrainOptions& o,
                        const TrainCallbacks& cb) {
    check(o.epochs > 0 && o.batch > 0 && o.ny > 0, "train: epochs, batch and ny must be positive");
    check(o.mask_first >= 0 && o.mask_first < o.ny, "train: mask_first {} must be below ny {}", o.mask_first, o.ny);
    check(static_cast<long>(data.validation.x.size()) >= model.receptive_field(),
          "the validation segment ({} samples) is shorter than the receptive field {}", data.validation.x.size(),
          model.receptive_field());
    optim::Adam adam(model.parameters().trainable(), {.lr = o.lr});
    const TrainingLoss loss_fn(o.loss);

    TrainResult result;
    result.validation_esr = validation_esr(model, data.validation);
    checkpoint::TensorMap best = snapshot(model.parameters());
    for (int epoch = 1; epoch <= o.epochs; ++epoch) {
        const auto [train_loss, stopped] = run_epoch(model, adam, data, o, loss_fn, epoch, cb);
        const double esr_now = validation_esr(model, data.validation);
        const bool improved = esr_now < result.validation_esr;
        if (improved) {
            result.validation_esr = esr_now;
            result.best_epoch = epoch;
            best = snapshot(model.parameters());
        }
        if (cb.on_epoch) cb.on_epoch({epoch, o.epochs, train_loss, esr_now, result.validation_esr, improved, adam.lr()});
        // Stopped within the epoch or at its end (before the next starts): the weights validated so far decide.
        if (stopped || (epoch < o.epochs && cb.stop_requested && cb.stop_requested())) {
            result.interrupted_at_epoch = epoch;
            break;
        }
        if (o.schedule == LrSchedule::Exponential)
            adam.set_lr(adam.lr() * (1.0f - o.lr_decay));  // torch's ExponentialLR, stepped per epoch
    }
    model.parameters().load_state_dict(best, "the best epoch's weights");
    result.model = model.to_nam_file(o.sample_rate);
    result.model.metadata.validation_esr = result.validation_esr;
    return result;
}

const char* esr_quality(double esr) {
    if (esr < 0.01) return "Great!";
    if (esr < 0.035) return "Not bad!";
    if (esr < 0.1) return "...This *might* sound ok!";
    if (esr < 0.3) return "...This probably won't sound great :(";
    return "...Something seems to have gone wrong.";
}

}  // namespace forge::nam::train
