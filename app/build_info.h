// How this forge was built: version, commit and dirty flag (taken at build time by meson's
// vcs_tag), kernel backend, -march=native or portable, compiler, build type and flags. Bench
// records carry it so that a comparison knows what it compares.
#pragma once

#include <string>

namespace forge::app {

struct BuildInfo {
    std::string version, commit;  // commit: a full hash, or "unknown" outside a git checkout
    bool dirty = false;
    std::string backend;
    bool native = false;
    std::string compiler, buildtype, flags;
};

BuildInfo build_info();

}  // namespace forge::app
