#include "models/spirals/spirals_train.h"

#include "core/autograd/ag.h"
#include "core/error.h"
#include "core/es/evolution_strategy.h"
#include "core/ops/concat.h"
#include "core/optim/adam.h"
#include "core/optim/muon.h"
#include "core/optim/schedule.h"
#include "core/optim/sgd.h"
#include "core/thread_pool.h"
#include "models/spirals/spirals_data.h"
#include "models/spirals/spirals_model.h"

#include <chrono>
#include <memory>

namespace forge::spirals {
namespace {

using Clock = std::chrono::steady_clock;

struct Batch {
    named::Tensor<Axes<Sample, Coord>> x;
    named::Tensor<Axes<Sample>> y;
};

named::Tensor<Axes<>> loss_of(const SpiralsMlp& model, const Batch& batch) {
    return named::cross_entropy<Class>(model.logits(batch.x), batch.y);
}

// Loss and accuracy without recording a graph.
std::pair<float, float> evaluate(const SpiralsMlp& model, const Batch& batch) {
    ag::NoGradScope no_grad;
    const auto logits = model.logits(batch.x);
    const float loss = named::cross_entropy<Class>(logits, batch.y).untyped().item();
    const auto predicted = named::argmax<Class>(logits).untyped().span<std::int64_t>();
    const auto truth = batch.y.untyped().span<std::int64_t>();
    std::int64_t correct = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) correct += predicted[i] == truth[i];
    return {loss, static_cast<float>(correct) / static_cast<float>(truth.size())};
}

// Calls `report` every `every` steps and at the end, with the rate since the start.
class Reporter {
public:
    Reporter(std::int64_t steps, std::int64_t every, const std::function<void(const Progress&)>& report)
        : steps_(steps), every_(every > 0 ? every : std::max<std::int64_t>(1, steps / 10)), report_(report) {}

    void after(std::int64_t step, const SpiralsMlp& model, const Batch& batch) const {
        if (!report_ || (step % every_ != 0 && step != steps_)) return;
        const auto [loss, accuracy] = evaluate(model, batch);
        report_({step, loss, accuracy, static_cast<double>(step) / seconds()});
    }
    double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

private:
    std::int64_t steps_, every_;
    const std::function<void(const Progress&)>& report_;
    Clock::time_point start_ = Clock::now();
};

std::unique_ptr<optim::Optimizer> make_optimizer(Method method, const std::vector<Tensor>& params) {
    switch (method) {
        case Method::Sgd:
            return std::make_unique<optim::Sgd>(params, optim::SgdOptions{.lr = 0.2f, .momentum = 0.9f, .nesterov = true});
        case Method::AdamW: return std::make_unique<optim::Adam>(params, optim::adamw_options(2e-2f, 1e-4f));
        case Method::Muon: {
            optim::MuonOptions options{.lr = 0.05f};
            options.adamw = optim::adamw_options(2e-2f, 0.0f);
            return std::make_unique<optim::Muon>(params, options);
        }
        case Method::Es: break;
    }
    fail("{} is not a gradient optimizer", method_name(method));
}

TrainResult train_with_gradients(const TrainConfig& config, std::int64_t steps, const Batch& batch,
                                 const Reporter& reporter) {
    SpiralsMlp model = SpiralsMlp::init(config.hidden, config.seed);
    model.mark_trainable();
    const auto optimizer = make_optimizer(config.method, model.parameters());
    const float peak = optimizer->lr();
    auto* muon = dynamic_cast<optim::Muon*>(optimizer.get());
    const float inner_peak = muon && muon->adamw() ? muon->adamw()->lr() : 0.0f;
    const optim::WarmupCosine schedule{.peak = 1.0f, .warmup = steps / 20 + 1, .total = steps, .floor = 0.05f};
    for (std::int64_t step = 0; step < steps; ++step) {
        optimizer->set_lr(peak * schedule.at(step));
        if (muon && muon->adamw()) muon->adamw()->set_lr(inner_peak * schedule.at(step));
        optimizer->zero_grad();
        ag::backward(loss_of(model, batch).untyped());
        optimizer->step();
        reporter.after(step + 1, model, batch);
    }
    const auto [loss, accuracy] = evaluate(model, batch);
    return {loss, accuracy, steps, reporter.seconds()};
}

// Evolution strategies: the population's losses (as negative rewards) evaluated in
// parallel, the ES gradient estimate fed to Adam on the flat parameter vector.
TrainResult train_with_es(const TrainConfig& config, std::int64_t steps, const Batch& batch, const Reporter& reporter) {
    const SpiralsMlp init = SpiralsMlp::init(config.hidden, config.seed);
    const Tensor theta = ag::requires_grad(forge::concat(
        [&] {
            std::vector<Tensor> flat;
            for (const Tensor& p : init.parameters()) flat.push_back(p.reshape(Shape{p.numel()}));
            return flat;
        }(),
        0));
    const SpiralsMlp model = SpiralsMlp::from_flat(theta, init);
    const es::EvolutionStrategy strategy(theta.numel(), {.population = 64, .sigma = 0.04f, .seed = config.seed});
    optim::Adam adam({theta}, optim::adamw_options(3e-2f, 0.0f));
    const float peak = adam.lr();
    const optim::WarmupCosine schedule{.peak = 1.0f, .warmup = 1, .total = steps, .floor = 0.05f};
    std::vector<float> rewards(static_cast<std::size_t>(strategy.population()));
    for (std::int64_t step = 0; step < steps; ++step) {
        ThreadPool::global().run(strategy.population(), [&](std::int64_t member) {
            ag::NoGradScope no_grad;
            Tensor candidate = Tensor::empty(theta.shape());
            strategy.perturbed(theta.span<float>(), step, static_cast<int>(member), candidate.span<float>());
            rewards[static_cast<std::size_t>(member)] = -loss_of(SpiralsMlp::from_flat(candidate, init), batch).untyped().item();
        });
        std::vector<float> ascent = strategy.gradient(rewards, step);
        for (float& g : ascent) g = -g;  // the optimizer descends
        ag::set_grad(theta, Tensor::from(std::span<const float>(ascent), theta.shape()));
        adam.set_lr(peak * schedule.at(step));
        adam.step();
        reporter.after(step + 1, model, batch);
    }
    const auto [loss, accuracy] = evaluate(model, batch);
    return {loss, accuracy, steps, reporter.seconds()};
}

}  // namespace

Method parse_method(const std::string& name) {
    if (name == "sgd") return Method::Sgd;
    if (name == "adamw") return Method::AdamW;
    if (name == "muon") return Method::Muon;
    if (name == "es") return Method::Es;
    fail("unknown optimizer '{}' (expected sgd, adamw, muon or es)", name);
}

std::string method_name(Method method) {
    switch (method) {
        case Method::Sgd: return "sgd";
        case Method::AdamW: return "adamw";
        case Method::Muon: return "muon";
        case Method::Es: return "es";
    }
    return "?";
}

std::int64_t default_steps(Method method) {
    switch (method) {
        case Method::Sgd: return 1500;
        case Method::AdamW: return 500;
        case Method::Muon: return 300;
        case Method::Es: return 400;
    }
    return 1000;
}

std::int64_t default_hidden(Method method) { return method == Method::Es ? 32 : 64; }

TrainResult train(const TrainConfig& requested, const std::function<void(const Progress&)>& report) {
    TrainConfig config = requested;
    if (config.hidden <= 0) config.hidden = default_hidden(config.method);
    const std::int64_t steps = config.steps > 0 ? config.steps : default_steps(config.method);
    const SpiralsData data = make_spirals(config.per_class, config.seed);
    const Batch batch{named::Tensor<Axes<Sample, Coord>>(data.points), named::Tensor<Axes<Sample>>(data.labels)};
    const Reporter reporter(steps, config.report_every, report);
    if (config.method == Method::Es) return train_with_es(config, steps, batch, reporter);
    return train_with_gradients(config, steps, batch, reporter);
}

}  // namespace forge::spirals
