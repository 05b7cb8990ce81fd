// Where the NAM test inputs are: Core's example models and renders (../shared/fixtures/nam,
// outside the project, may be absent); the project's own data (test/data/nam, always present:
// core/ holds models forge generated or trained and Core's renders of them); forge's bundled
// models (models/nam/bundled).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>

namespace forge::nam::testing {

inline std::filesystem::path fixtures() { return FORGE_NAM_FIXTURES; }
inline bool have_fixtures() { return std::filesystem::exists(fixtures() / "input.wav"); }
inline std::filesystem::path test_data() { return FORGE_NAM_TEST_DATA; }
inline std::filesystem::path bundled_models() { return FORGE_NAM_BUNDLED; }

#define FORGE_REQUIRE_NAM_FIXTURES()                                                                    \
    do {                                                                                                \
        if (!::forge::nam::testing::have_fixtures())                                                    \
            GTEST_SKIP() << "NAM reference fixtures not found at " << ::forge::nam::testing::fixtures(); \
    } while (0)

}  // namespace forge::nam::testing
