// Where the NAM test inputs are: Core's reference renders (outside the project, may be
// absent) and the small models forge generates itself (test/models/nam/data).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>

namespace forge::nam::testing {

inline std::filesystem::path fixtures() { return FORGE_NAM_FIXTURES; }
inline bool have_fixtures() { return std::filesystem::exists(fixtures() / "input.wav"); }

#define FORGE_REQUIRE_NAM_FIXTURES()                                                                    \
    do {                                                                                                \
        if (!::forge::nam::testing::have_fixtures())                                                    \
            GTEST_SKIP() << "NAM reference fixtures not found at " << ::forge::nam::testing::fixtures(); \
    } while (0)

}  // namespace forge::nam::testing
