// The models forge ships (models/FAMILY/bundled/ in the source tree): found where `meson
// install` puts them (DATADIR/forge/FAMILY/), else in the source tree of a build that is not
// installed. `forge nam run default`, `forge chat` (no model, or "default"), `forge transcribe`
// (no --model, or "default") and any other subcommand with a bundled default look them up here.
#pragma once

#include <string>
#include <string_view>

namespace forge::app {

// The path of FILE of FAMILY ("nam", "llm", "asr"); throws naming both places when it is in neither.
std::string bundled_model_path(std::string_view family, std::string_view file);

// A language-model argument of `forge chat` / `forge serve`: a GGUF path as given, or, when
// empty or "default", the bundled chat model (models/llm/bundled/, MODEL_CARD.md there).
std::string llm_model_path(const std::string& model);

}  // namespace forge::app
