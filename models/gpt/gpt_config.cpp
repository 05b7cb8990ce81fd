#include "models/gpt/gpt_config.h"

#include "core/error.h"

namespace forge::gpt {

std::int64_t GptConfig::head_size() const {
    if (head_dim > 0) return head_dim;
    return width() % 128 == 0 ? 128 : 64;
}

std::int64_t GptConfig::ff_hidden() const {
    const std::int64_t want = (8 * width() + 2) / 3;
    return (want + 63) / 64 * 64;
}

void GptConfig::validate() const {
    check(depth >= 1 && depth <= kMaxDepth, "--depth {}: must be 1..{}", depth, kMaxDepth);
    check(vocab >= 2, "the tokenizer has {} tokens: need at least 2", vocab);
    check(context >= 2 && context <= kMaxContext, "--seq-len {}: must be 2..{}", context, kMaxContext);
    check(head_dim == 0 || head_dim == 64 || head_dim == 128, "--head-dim {}: must be 64 or 128", head_dim);
    check(width() % head_size() == 0, "--head-dim {} does not divide the width {} (64 x depth)", head_size(),
          width());
}

}  // namespace forge::gpt
