// Reading the PyTorch goldens written by tools/make_autograd_goldens.py, and comparing a
// forge gradient with one of them.
#pragma once

#include "core/tensor.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace forge::ag::testing {

inline nlohmann::json load_golden(const std::string& name) {
    std::ifstream in(std::string(FORGE_TEST_DATA_DIR) + "/autograd/" + name);
    if (!in) throw std::runtime_error("missing golden " + name);
    return nlohmann::json::parse(in);
}

inline Shape golden_shape(const nlohmann::json& t) {
    Shape shape;
    for (const auto& d : t["shape"]) shape.push_back(d.get<std::int64_t>());
    return shape;
}

inline Tensor golden_f32(const nlohmann::json& t) {
    const auto values = t["data"].get<std::vector<float>>();
    return Tensor::from(std::span<const float>(values), golden_shape(t));
}

inline Tensor golden_i64(const nlohmann::json& t) {
    const auto values = t["data"].get<std::vector<std::int64_t>>();
    return Tensor::from(std::span<const std::int64_t>(values), golden_shape(t));
}

// The bound: |got - want| <= 1e-5 + 2e-3 |want| for every element.
inline ::testing::AssertionResult matches_golden(const Tensor& got, const nlohmann::json& want) {
    if (!got.defined()) return ::testing::AssertionFailure() << "no gradient";
    if (!(got.shape() == golden_shape(want))) {
        return ::testing::AssertionFailure() << "shape " << got.shape().to_string();
    }
    const auto g = got.to_vector();
    const auto w = want["data"].get<std::vector<double>>();
    for (std::size_t i = 0; i < g.size(); ++i) {
        if (!(std::fabs(g[i] - w[i]) <= 1e-5 + 2e-3 * std::fabs(w[i]))) {
            return ::testing::AssertionFailure() << "element " << i << ": got " << g[i] << ", want " << w[i];
        }
    }
    return ::testing::AssertionSuccess();
}

}  // namespace forge::ag::testing
