// Where the NAM test inputs are: Core's example models and renders (../shared/fixtures/nam,
// outside the project but always beside it in CI: a test that needs them fails without them,
// it never skips); the project's own data (test/data/nam, always present:
// core/ holds models forge generated or trained and Core's renders of them); forge's bundled
// models (models/nam/bundled).
#pragma once

#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/nam_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace forge::nam::testing {

inline std::filesystem::path fixtures() { return FORGE_NAM_FIXTURES; }
inline bool have_fixtures() { return std::filesystem::exists(fixtures() / "input.wav"); }
inline std::filesystem::path test_data() { return FORGE_NAM_TEST_DATA; }
inline std::filesystem::path bundled_models() { return FORGE_NAM_BUNDLED; }

// How far a render is from a reference: the largest |output - golden| (NaN counts as worst),
// where, and the reference's peak. The parity bound is worst <= 1e-5 * max(1, peak).
struct RenderError {
    double worst = 0.0, peak = 0.0;
    std::size_t at = 0;
};

inline RenderError render_error(const std::vector<float>& output, const std::vector<float>& golden) {
    RenderError e;
    for (std::size_t i = 0; i < golden.size(); ++i) {
        e.peak = std::max(e.peak, std::fabs(static_cast<double>(golden[i])));
        const double error = std::fabs(static_cast<double>(output[i]) - golden[i]);
        if (error > e.worst || std::isnan(error)) e.worst = error, e.at = i;
    }
    return e;
}

// One parity case: a model, Core's render of the input through it, and the slim setting.
struct CoreRenderCase {
    const char* model;
    const char* golden;
    std::optional<double> slim;
};

// forge's render as Core's `render` makes it (and `forge nam run`): an engine with 64-frame
// blocks, prewarmed on creation.
inline std::vector<float> render_like_core(const NamFile& file, std::optional<double> slim, std::span<const float> input) {
    Engine engine(make_model(file, {{}, slim}), 64);
    return render(engine, input);
}

// The parity bound, worst <= 1e-5 * max(1, peak), with the error printed for the docs' tables.
inline void expect_within_parity_bound(const std::vector<float>& output, const std::vector<float>& golden,
                                       const std::string& label) {
    const auto [worst, peak, worst_at] = render_error(output, golden);
    std::printf("[ parity ] %-72s max abs error %.3g, peak %.4g, error/max(1,peak) %.3g\n", label.c_str(), worst, peak,
                worst / std::max(1.0, peak));
    EXPECT_LE(worst, 1e-5 * std::max(1.0, peak)) << label << ": worst at sample " << worst_at << ": forge "
                                                 << output[worst_at] << ", Core " << golden[worst_at];
}

// CI always has ../shared beside the checkout, so missing fixtures are a failure, not a skip.
#define FORGE_REQUIRE_NAM_FIXTURES()                                                                   \
    do {                                                                                               \
        if (!::forge::nam::testing::have_fixtures())                                                   \
            GTEST_FAIL() << "NAM reference fixtures not found at " << ::forge::nam::testing::fixtures() \
                         << " (../shared must sit beside the source tree, as in CI)";                  \
    } while (0)

}  // namespace forge::nam::testing
