// Reading the PyTorch goldens written by tools/make_autograd_goldens.py, and comparing a
// forge gradient with one of them.
#pragma once

#include "core/tensor.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
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

// max |got - want| / max |want| over a tensor: the error relative to the tensor's scale (an
// element-wise relative error would be dominated by the elements that cancel to near zero).
inline double scaled_error(const std::vector<float>& got, const std::vector<double>& want) {
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        worst = std::max(worst, std::fabs(got[i] - want[i]));
        scale = std::max(scale, std::fabs(want[i]));
    }
    return worst / scale;
}

// A forge gradient against a float64 golden: the same shape and scaled_error <= bound.
inline ::testing::AssertionResult matches_golden(const Tensor& got, const nlohmann::json& want, double bound) {
    if (!got.defined()) return ::testing::AssertionFailure() << "no gradient";
    if (!(got.shape() == golden_shape(want))) {
        return ::testing::AssertionFailure() << "shape " << got.shape().to_string();
    }
    const double error = scaled_error(got.to_vector(), want["data"].get<std::vector<double>>());
    if (!(error <= bound)) return ::testing::AssertionFailure() << "scaled error " << error << " > " << bound;
    return ::testing::AssertionSuccess();
}

// A forge loss against a float64 golden, relative error <= bound.
inline ::testing::AssertionResult loss_matches(double got, double want, double bound) {
    const double error = std::fabs(got - want) / std::fabs(want);
    if (!(error <= bound)) return ::testing::AssertionFailure() << "loss " << got << " vs " << want << ": relative error " << error << " > " << bound;
    return ::testing::AssertionSuccess();
}

}  // namespace forge::ag::testing
