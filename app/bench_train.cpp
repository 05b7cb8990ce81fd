// `forge bench train`: the time of one training step (forward + backward + AdamW update)
// for an MLP and for one pre-norm transformer block, and of one `forge train gpt` step. tools/bench_train_torch.py runs the
// same shapes in PyTorch at the same thread count and prints the ratio.
#include "app/bench.h"
#include "app/bench_suites.h"
#include "app/timing.h"
#include "core/autograd/ag.h"
#include "core/optim/adam.h"
#include "core/random/random_tensor.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "models/gpt/gpt_model.h"
#include "models/gpt/gpt_optimizer.h"
#include "nn/linear.h"
#include "nn/parameter_set.h"
#include "nn/transformer_block.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace forge::app {
namespace {

// The shapes, shared with tools/bench_train_torch.py (keep the two in step).
struct MlpShape {
    std::int64_t batch = 512, in = 256, hidden = 1024, classes = 10;
};
struct BlockShape {
    std::int64_t batch = 4, seq = 128, dim = 256, heads = 4, hidden = 768;
};
// `forge train gpt --depth 6` (width 384, 3 heads of 128) with an 8192-token vocabulary.
struct GptShape {
    std::int64_t depth = 6, vocab = 8192, batch = 2, seq = 256;
};

// One model's training step: its name, shape and every repetition's seconds.
struct Result {
    std::string name;
    std::string shape;
    std::vector<double> seconds;
};

Result bench_mlp(int reps) {
    const MlpShape s;
    nn::ParameterSet params(1);
    const auto fc1 = nn::Linear::make(params, "fc1", s.in, s.hidden, nn::Init::fan_in_uniform(s.in), true);
    const auto fc2 = nn::Linear::make(params, "fc2", s.hidden, s.hidden, nn::Init::fan_in_uniform(s.hidden), true);
    const auto out = nn::Linear::make(params, "out", s.hidden, s.classes, nn::Init::fan_in_uniform(s.hidden), true);
    optim::Adam adam(params.trainable(), optim::adamw_options(1e-3f));
    const Tensor x = random::normal_tensor({s.batch, s.in}, 7);
    Tensor y = Tensor::empty({s.batch}, DType::I64);
    for (std::int64_t i = 0; i < s.batch; ++i) y.data<std::int64_t>()[i] = i % s.classes;
    const auto seconds = time_reps(
        [&] {
            adam.zero_grad();
            ag::backward(ag::cross_entropy(out(ag::gelu_erf(fc2(ag::gelu_erf(fc1(x))))), y));
            adam.step();
        },
        reps);
    return {"mlp", fmt::format("{}x{}-{}-{}-{}", s.batch, s.in, s.hidden, s.hidden, s.classes), seconds};
}

Result bench_block(int reps) {
    const BlockShape s;
    const std::int64_t d = s.dim;
    nn::TransformerBlockConfig config;
    config.attention = {.dim = d, .n_head = s.heads, .n_kv_head = s.heads, .head_dim = d / s.heads};
    config.mlp = {.dim = d, .hidden = s.hidden, .activation = nn::MlpActivation::SwiGLU};
    config.norm_eps = 1e-5f;
    nn::ParameterSet params(11);
    const nn::Init init = nn::Init::fan_in_uniform(d);  // the MLP's down projection too: timing only
    const auto block = nn::TransformerBlock::make(params, "blk.0.", config, {init, init});
    optim::Adam adam(params.trainable(), optim::adamw_options(1e-3f));
    const Tensor x = random::normal_tensor({s.batch, s.seq, d}, 18);
    const Tensor target = random::normal_tensor({s.batch, s.seq, d}, 19);
    const auto seconds = time_reps(
        [&] {
            adam.zero_grad();
            ag::backward(ag::mse(block(x), target));
            adam.step();
        },
        reps);
    return {"transformer_block", fmt::format("B{} T{} D{} H{} F{}", s.batch, s.seq, s.dim, s.heads, s.hidden), seconds};
}

// One optimizer step of `forge train gpt`: forward, cross-entropy, backward, clipping, Muon + AdamW.
Result bench_gpt(int reps) {
    const GptShape s;
    gpt::GptConfig config;
    config.depth = s.depth;
    config.vocab = s.vocab;
    config.context = s.seq;
    gpt::GptModel model(config, 1);
    gpt::GptOptimizer optimizer(model, gpt::OptimizerConfig{}, s.batch * s.seq, 1000);
    const Tensor tokens = random::uniform_tensor({s.batch, s.seq + 1}, 20, 0.0f, static_cast<float>(s.vocab) - 0.5f)
                              .to(DType::I32);
    const Tensor ids = tokens.narrow(1, 0, s.seq).contiguous();
    const Tensor targets = tokens.narrow(1, 1, s.seq).contiguous().reshape(Shape{s.batch * s.seq});
    const auto seconds = time_reps(
        [&] {
            optimizer.zero_grad();
            const Tensor logits = ag::reshape(model.forward(ids), Shape{s.batch * s.seq, s.vocab});
            ag::backward(ag::cross_entropy(logits, targets));
            optimizer.step(0);
        },
        reps);
    return {"gpt", fmt::format("d{} V{} B{} T{}", s.depth, s.vocab, s.batch, s.seq), seconds};
}

void print(const std::vector<Result>& results, bool json, const std::string& precision) {
    const int threads = ThreadPool::global().size();
    if (json) {
        nlohmann::json out = {{"threads", threads},
                              {"backend", kernels::kBackendName},
                              {"precision", precision},
                              {"results", nlohmann::json::array()}};
        for (const auto& r : results) {
            out["results"].push_back({{"name", r.name}, {"shape", r.shape}, {"ms", bench::summarize(r.seconds).median * 1e3}});
        }
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("training step (forward + backward + AdamW), {} threads, {} backend, {} matmuls\n", threads,
               kernels::kBackendName, precision);
    for (const auto& r : results) {
        const bench::Summary s = bench::summarize(r.seconds);
        fmt::print("{:<18} {:<28} {:>9.3f} ms  (cv {:.1f}%)\n", r.name, r.shape, s.median * 1e3, 100 * s.cv);
    }
}

}  // namespace

std::vector<bench::Row> train_rows(const BenchPlan& plan) {
    std::vector<bench::Row> rows;
    std::vector<Result> results = {bench_mlp(plan.reps), bench_block(plan.reps)};
    if (plan.full) results.push_back(bench_gpt(plan.reps));  // ~3 s a step: the full suite only
    for (const Result& r : results) {
        rows.push_back(time_row(fmt::format("train/{} step {}", r.name, r.shape), r.seconds,
                                {{"params", {{"threads", ThreadPool::global().size()}}}}));
    }
    return rows;
}

void add_bench_train_command(CLI::App& bench, CommandTable& commands) {
    CLI::App* train = bench.add_subcommand("train", "Time a training step of an MLP, a transformer block and a GPT");
    auto json = std::make_shared<bool>(false);
    auto reps = std::make_shared<int>(9);
    auto only = std::make_shared<std::vector<std::string>>();
    train->add_flag("--json", *json, "Print one JSON object instead of a table");
    train->add_option("--reps", *reps, "Measured repetitions after the warm-up (default 9)")->check(CLI::Range(1, 1000));
    train->add_option("--only", *only, "Time only these models (mlp, transformer_block, gpt)")
        ->check(CLI::IsMember({"mlp", "transformer_block", "gpt"}));
    auto precision = std::make_shared<std::string>("f32");
    train->add_option("--precision", *precision, "Matrix products in f32, or bf16 operands with f32 sums (train gpt's --precision)")
        ->capture_default_str()->check(CLI::IsMember({"f32", "bf16"}));
    commands.add(train, [json, reps, only, precision] {
        // Every differentiable product of the steps; the optimizers' own products stay f32, as in training.
        const ag::AutocastScope autocast(matmul_precision_named(*precision).value());
        const auto wanted = [&](const std::string& name) {
            return only->empty() || std::find(only->begin(), only->end(), name) != only->end();
        };
        std::vector<Result> results;
        if (wanted("mlp")) results.push_back(bench_mlp(*reps));
        if (wanted("transformer_block")) results.push_back(bench_block(*reps));
        if (wanted("gpt")) results.push_back(bench_gpt(*reps));
        print(results, *json, *precision);
        return 0;
    });
}

}  // namespace forge::app
