// Optimizers against torch.optim, 4 steps from the same parameters and gradients
// (tools/make_optim_goldens.py); Muon against the reference Muon itself on the same matrices
// (tools/make_muon_golden.py); gradient clipping against torch.nn.utils.clip_grad_norm_.
#include "core/autograd/variable.h"
#include "core/optim/adam.h"
#include "core/optim/clip.h"
#include "core/optim/muon.h"
#include "core/optim/sgd.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace forge::optim {
namespace {

using nlohmann::json;

json load(const std::string& name) {
    std::ifstream in(std::string(FORGE_TEST_DATA_DIR) + "/optim/" + name);
    if (!in) throw std::runtime_error("missing golden test/data/optim/" + name);
    return json::parse(in);
}

const json& golden() {
    static const json doc = load("optimizers.json");
    return doc;
}

Tensor tensor_of(const json& t) {
    Shape shape;
    for (const auto& d : t["shape"]) shape.push_back(d.get<std::int64_t>());
    const auto data = t["data"].get<std::vector<float>>();
    return Tensor::from(std::span<const float>(data), shape);
}

void expect_near(const Tensor& got, const json& want, double tolerance, const std::string& what) {
    const auto g = got.to_vector();
    const auto w = want["data"].get<std::vector<double>>();
    ASSERT_EQ(g.size(), w.size()) << what;
    double worst = 0;
    for (std::size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::fabs(g[i] - w[i]));
    EXPECT_LE(worst, tolerance) << what;
}

// Run a case: build params (all, or matrices only), step with the golden gradients, compare
// with `history` (the parameters after each step).
void run_case(const std::string& name, const json& history, double tolerance, bool matrices_only,
              const std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>& make) {
    const json& doc = golden();
    std::vector<Tensor> params;
    std::vector<std::size_t> source;  // index into the golden's parameter list
    for (std::size_t i = 0; i < doc["initial"].size(); ++i) {
        const Tensor p = tensor_of(doc["initial"][i]);
        if (matrices_only && p.rank() != 2) continue;
        params.push_back(ag::requires_grad(p));
        source.push_back(i);
    }
    auto optimizer = make(params);
    for (std::size_t step = 0; step < history.size(); ++step) {
        for (std::size_t k = 0; k < params.size(); ++k) ag::set_grad(params[k], tensor_of(doc["grads"][step][source[k]]));
        optimizer->step();
        for (std::size_t k = 0; k < params.size(); ++k) {
            expect_near(params[k], history[step][k], tolerance, name + " step " + std::to_string(step + 1));
        }
    }
}

SgdOptions sgd_options(const json& c) {
    return {.lr = c["lr"], .momentum = c["momentum"], .dampening = c["dampening"], .weight_decay = c["weight_decay"],
            .nesterov = c["nesterov"]};
}

AdamOptions adam_options(const json& c, bool decoupled) {
    return {.lr = c["lr"], .beta1 = c["betas"][0], .beta2 = c["betas"][1], .eps = c["eps"],
            .weight_decay = c["weight_decay"], .decoupled = decoupled};
}

// torch.optim in float32 against forge in f32: measured at most 5.96e-8 (one f32 ulp at 1)
// for every case and step, simd and scalar builds; the bound is 10x that.
constexpr double kTorchBound = 6e-7;

TEST(OptimizerGolden, Sgd) {
    for (const char* name : {"sgd", "sgd_momentum", "sgd_nesterov"}) {
        const SgdOptions options = sgd_options(golden()["cases"][name]["config"]);
        run_case(name, golden()["cases"][name]["after_step"], kTorchBound, false, [&](std::vector<Tensor> p) { return std::make_unique<Sgd>(std::move(p), options); });
    }
}

TEST(OptimizerGolden, Adam) {
    const AdamOptions options = adam_options(golden()["cases"]["adam"]["config"], false);
    run_case("adam", golden()["cases"]["adam"]["after_step"], kTorchBound, false, [&](std::vector<Tensor> p) { return std::make_unique<Adam>(std::move(p), options); });
}

TEST(OptimizerGolden, AdamW) {
    const AdamOptions options = adam_options(golden()["cases"]["adamw"]["config"], true);
    run_case("adamw", golden()["cases"]["adamw"]["after_step"], kTorchBound, false, [&](std::vector<Tensor> p) { return std::make_unique<Adam>(std::move(p), options); });
}

// The golden is the reference code's own arithmetic in float64 (its bf16 Newton-Schulz cast made
// float64; forge iterates in f32). The published bf16 code lands 3.7e-3 from it, the reference
// in f32 2.1e-7 (both recorded in the golden); forge measured 1.70e-7 (simd and scalar), the
// bound is 10x that.
TEST(OptimizerGolden, MuonMatchesTheReferenceMuon) {
    const json reference = load("muon_reference.json");
    const json& c = reference["config"];
    const MuonOptions options{.lr = c["lr"], .momentum = c["momentum"], .weight_decay = c["weight_decay"]};
    ASSERT_EQ(reference["params"], json({0, 1}));  // the matrices of optimizers.json
    run_case("muon", reference["after_step"], 1.7e-6, true,
             [&](std::vector<Tensor> p) { return std::make_unique<Muon>(std::move(p), options); });
}

TEST(OptimizerGolden, ClipGradNormReturnsThePreClipNorm) {
    const json& clip = golden()["clip"];
    std::vector<Tensor> params;
    for (std::size_t i = 0; i < golden()["initial"].size(); ++i) {
        params.push_back(ag::requires_grad(tensor_of(golden()["initial"][i])));
        ag::set_grad(params.back(), tensor_of(golden()["grads"][0][i]));
    }
    const float norm = clip_grad_norm(params, clip["max_norm"].get<float>());
    // Measured exact (0) in both builds; 6e-7 is 10 f32 ulps, room for another summation order.
    EXPECT_NEAR(norm, clip["norm"].get<double>(), 6e-7 * clip["norm"].get<double>());
    for (std::size_t i = 0; i < params.size(); ++i) expect_near(ag::grad(params[i]), clip["clipped"][i], kTorchBound, "clip");
}

}  // namespace
}  // namespace forge::optim
