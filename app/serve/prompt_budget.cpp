#include "app/serve/prompt_budget.h"

#include "app/serve/api_error.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <fmt/format.h>

#include <algorithm>

namespace forge::app::serve {

std::size_t longest_token_bytes(const llm::Tokenizer& tokenizer) {
    std::size_t longest = 1;
    for (std::int32_t id = 0; id < tokenizer.n_vocab(); ++id) longest = std::max(longest, tokenizer.token_text(id).size());
    return longest;
}

// A prompt must leave one position to generate in: at most n_ctx - 1 tokens.
std::size_t max_prompt_bytes(std::int64_t n_ctx, std::size_t longest_token) {
    return static_cast<std::size_t>(std::max<std::int64_t>(n_ctx - 1, 0)) * longest_token;
}

void check_prompt_bytes(std::size_t text_bytes, std::int64_t n_ctx, std::size_t longest_token, const std::string& param) {
    const std::size_t limit = max_prompt_bytes(n_ctx, longest_token);
    if (text_bytes <= limit) return;
    throw invalid_request(fmt::format("This model's maximum context length is {} tokens. However, your {} has {} bytes of "
                                      "text, at least {} tokens (no token of this model is longer than {} bytes), so at "
                                      "most {} bytes can fit. Please reduce the length of the {}.",
                                      n_ctx, param, text_bytes, (text_bytes + longest_token - 1) / longest_token,
                                      longest_token, limit, param),
                          param, "context_length_exceeded");
}

}  // namespace forge::app::serve
