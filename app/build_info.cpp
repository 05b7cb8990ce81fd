#include "app/build_info.h"

#include "app/build_commit.h"
#include "app/build_config.h"

#include <string_view>

namespace forge::app {

BuildInfo build_info() {
    std::string_view describe = FORGE_GIT_DESCRIBE;
    constexpr std::string_view kDirty = "-dirty";
    const bool dirty = describe.ends_with(kDirty);
    if (dirty) describe.remove_suffix(kDirty.size());
    return {FORGE_VERSION,        std::string(describe),  dirty,
            FORGE_BUILD_BACKEND,  FORGE_BUILD_NATIVE != 0, FORGE_BUILD_COMPILER,
            FORGE_BUILD_TYPE,     FORGE_BUILD_FLAGS};
}

}  // namespace forge::app
