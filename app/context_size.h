// How many positions a language model's session gets: `forge chat --ctx` and `forge serve -c`.
//
// A model answers garbage past the positions it was trained on (GGUF {arch}.context_length):
// the bundled chat model trains at 256, and a 4096 default let a long session run far past
// that. So the default is the trained length when that is smaller, said in one line, and a
// size asked beyond it warns. Chat keeps the size asked (the user may know better: a model
// extended by RoPE scaling); serve caps it (issue 29: clients cannot see the warning).
#pragma once

#include <spdlog/spdlog.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace forge::app {

// What a size asked beyond the trained length gets.
enum class PastTrainedLength { Keep, Cap };

// `asked`: the flag's value, if given. `trained`: the model's trained length (0: unknown).
// `fallback`: the default when nothing limits it. `flag` names the flag in the messages.
inline std::int64_t context_size(std::optional<std::int64_t> asked, std::int64_t trained, std::int64_t fallback,
                                 std::string_view flag, PastTrainedLength past) {
    if (!asked) {
        if (trained <= 0 || trained >= fallback) return fallback;
        spdlog::info("context: {} tokens, the length the model was trained on ({} to change it)", trained, flag);
        return trained;
    }
    if (trained <= 0 || *asked <= trained) return *asked;
    if (past == PastTrainedLength::Cap) {
        spdlog::warn("{} {} is past the {} tokens the model was trained on: capped at {}", flag, *asked, trained, trained);
        return trained;
    }
    spdlog::warn("{} {} is past the {} tokens the model was trained on: answers beyond them may be garbage", flag, *asked,
                 trained);
    return *asked;
}

}  // namespace forge::app
