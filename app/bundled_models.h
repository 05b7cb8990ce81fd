// The models forge ships (models/FAMILY/bundled/ in the source tree): found where `meson
// install` puts them (DATADIR/forge/FAMILY/), else in the source tree of a build that is not
// installed. Every model argument with a bundled default (`forge chat` and `forge serve`, their
// `--model-draft`, `forge transcribe` and `bench transcribe`, `forge nam run|info|bench`) is
// resolved here: "default" (or none) is the bundled model, anything else a file that must exist.
#pragma once

#include <string>
#include <string_view>

namespace forge::app {

struct BundledModel {
    std::string_view family;  // "llm", "asr", "nam"
    std::string_view file;
};

// The chat model (models/llm/bundled/, MODEL_CARD.md there) and its draft model for --spec
// draft (`--model-draft default`, made by tools/train_draft_chat.sh), the speech model (made by
// tools/train_default_asr.sh) and the amp (a profile of the simulated amp).
inline constexpr BundledModel kBundledChatModel{"llm", "forge-chat.gguf"};
inline constexpr BundledModel kBundledChatDraftModel{"llm", "forge-chat-draft.gguf"};
inline constexpr BundledModel kBundledSpeechModel{"asr", "forge-asr.gguf"};
inline constexpr BundledModel kBundledAmpModel{"nam", "forge-sim-amp.nam"};

// The path of a bundled model; throws naming both places when it is in neither.
std::string bundled_model_path(const BundledModel& model);

// A model argument: empty or "default" is the bundled model (its path logged), anything else
// a path that must name a file ("PATH: no such model file").
std::string resolve_model(const std::string& argument, const BundledModel& bundled);

}  // namespace forge::app
