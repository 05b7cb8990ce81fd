// `forge bench train`: the time of one training step (forward + backward + AdamW update)
// for an MLP and for one pre-norm transformer block. tools/bench_train_torch.py runs the
// same shapes in PyTorch at the same thread count and prints the ratio.
#include "app/bench.h"
#include "app/bench_suites.h"
#include "app/timing.h"
#include "core/autograd/ag.h"
#include "core/optim/adam.h"
#include "core/random/random_tensor.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

Tensor weight(const Shape& shape, std::uint64_t key) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(shape[shape.rank() - 1]));
    return ag::requires_grad(random::uniform_tensor(shape, key, -bound, bound));
}

// One model's training step: its name, shape and every repetition's seconds.
struct Result {
    std::string name;
    std::string shape;
    std::vector<double> seconds;
};

Result bench_mlp(int reps) {
    const MlpShape s;
    const std::vector<Tensor> p = {weight({s.hidden, s.in}, 1), weight({s.hidden}, 2), weight({s.hidden, s.hidden}, 3),
                                   weight({s.hidden}, 4), weight({s.classes, s.hidden}, 5), weight({s.classes}, 6)};
    optim::Adam adam(p, optim::adamw_options(1e-3f));
    const Tensor x = random::normal_tensor({s.batch, s.in}, 7);
    Tensor y = Tensor::empty({s.batch}, DType::I64);
    for (std::int64_t i = 0; i < s.batch; ++i) y.data<std::int64_t>()[i] = i % s.classes;
    const auto seconds = time_reps(
        [&] {
            adam.zero_grad();
            const Tensor h1 = ag::gelu_erf(ag::linear(x, p[0], p[1]));
            const Tensor h2 = ag::gelu_erf(ag::linear(h1, p[2], p[3]));
            ag::backward(ag::cross_entropy(ag::linear(h2, p[4], p[5]), y));
            adam.step();
        },
        reps);
    return {"mlp", fmt::format("{}x{}-{}-{}-{}", s.batch, s.in, s.hidden, s.hidden, s.classes), seconds};
}

// [B, T, D] -> [B, H, T, hd], rotated by RoPE when asked.
Tensor split_heads(const Tensor& x, const BlockShape& s, const Tensor& positions, bool rotate) {
    Tensor t = ag::reshape(x, Shape{s.batch, s.seq, s.heads, s.dim / s.heads});
    if (rotate) t = ag::rope(t, positions, {.mode = RopeMode::Neox});
    return ag::transpose(t, 1, 2);
}

Result bench_block(int reps) {
    const BlockShape s;
    const std::int64_t d = s.dim;
    std::vector<Tensor> p = {ag::requires_grad(Tensor::full({d}, 1.0f)), weight({d, d}, 11), weight({d, d}, 12),
                             weight({d, d}, 13), weight({d, d}, 14), ag::requires_grad(Tensor::full({d}, 1.0f)),
                             weight({s.hidden, d}, 15), weight({s.hidden, d}, 16), weight({d, s.hidden}, 17)};
    optim::Adam adam(p, optim::adamw_options(1e-3f));
    const Tensor x = random::normal_tensor({s.batch, s.seq, d}, 18);
    const Tensor target = random::normal_tensor({s.batch, s.seq, d}, 19);
    const Tensor positions = Tensor::arange(s.seq).to(DType::I64);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d / s.heads));
    const auto seconds = time_reps(
        [&] {
            adam.zero_grad();
            const Tensor h = ag::rmsnorm(x, p[0], 1e-5f);
            const Tensor q = split_heads(ag::linear(h, p[1], {}), s, positions, true);
            const Tensor k = split_heads(ag::linear(h, p[2], {}), s, positions, true);
            const Tensor v = split_heads(ag::linear(h, p[3], {}), s, positions, false);
            const Tensor attn = ag::softmax(ag::matmul(q, k, false, true), scale, true);
            const Tensor mixed = ag::reshape(ag::transpose(ag::matmul(attn, v), 1, 2), Shape{s.batch, s.seq, d});
            const Tensor r = ag::add(x, ag::linear(mixed, p[4], {}));
            const Tensor h2 = ag::rmsnorm(r, p[5], 1e-5f);
            const Tensor gated = ag::mul(ag::silu(ag::linear(h2, p[6], {})), ag::linear(h2, p[7], {}));
            ag::backward(ag::mse(ag::add(r, ag::linear(gated, p[8], {})), target));
            adam.step();
        },
        reps);
    return {"transformer_block", fmt::format("B{} T{} D{} H{} F{}", s.batch, s.seq, s.dim, s.heads, s.hidden), seconds};
}

void print(const std::vector<Result>& results, bool json) {
    const int threads = ThreadPool::global().size();
    if (json) {
        nlohmann::json out = {{"threads", threads}, {"backend", kernels::kBackendName}, {"results", nlohmann::json::array()}};
        for (const auto& r : results) {
            out["results"].push_back({{"name", r.name}, {"shape", r.shape}, {"ms", bench::summarize(r.seconds).median * 1e3}});
        }
        fmt::print("{}\n", out.dump(2));
        return;
    }
    fmt::print("training step (forward + backward + AdamW), {} threads, {} backend\n", threads, kernels::kBackendName);
    for (const auto& r : results) {
        const bench::Summary s = bench::summarize(r.seconds);
        fmt::print("{:<18} {:<28} {:>9.3f} ms  (cv {:.1f}%)\n", r.name, r.shape, s.median * 1e3, 100 * s.cv);
    }
}

}  // namespace

std::vector<bench::Row> train_rows(const BenchPlan& plan) {
    std::vector<bench::Row> rows;
    for (const Result& r : {bench_mlp(plan.reps), bench_block(plan.reps)}) {
        rows.push_back(time_row(fmt::format("train/{} step {}", r.name, r.shape), r.seconds,
                                {{"params", {{"threads", ThreadPool::global().size()}}}}));
    }
    return rows;
}

void add_bench_train_command(CLI::App& bench, CommandTable& commands) {
    CLI::App* train = bench.add_subcommand("train", "Time a training step of an MLP and of a transformer block");
    auto json = std::make_shared<bool>(false);
    auto reps = std::make_shared<int>(9);
    train->add_flag("--json", *json, "Print one JSON object instead of a table");
    train->add_option("--reps", *reps, "Measured repetitions after the warm-up (default 9)")->check(CLI::Range(1, 1000));
    commands.add(train, [json, reps] {
        print({bench_mlp(*reps), bench_block(*reps)}, *json);
        return 0;
    });
}

}  // namespace forge::app
