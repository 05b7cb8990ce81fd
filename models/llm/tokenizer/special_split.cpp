#include "models/llm/tokenizer/special_split.h"

#include <list>

namespace forge::llm {

namespace {

bool splits_out(TokenType type, bool parse_special) {
    switch (type) {
        case TokenType::UserDefined: return true;
        case TokenType::Control:
        case TokenType::Unknown: return parse_special;
        case TokenType::Undefined:
        case TokenType::Normal:
        case TokenType::Unused:
        case TokenType::Byte: return false;
    }
    return false;
}

// Replaces the text fragment at `it` by its pieces around each occurrence of `token`.
void cut(std::list<Fragment>& fragments, std::list<Fragment>::iterator it, std::int32_t id, std::string_view token) {
    std::string_view rest = it->text;
    for (std::size_t found = rest.find(token); found != std::string_view::npos; found = rest.find(token)) {
        if (found > 0) fragments.insert(it, Fragment{-1, rest.substr(0, found)});
        fragments.insert(it, Fragment{id, token});
        rest.remove_prefix(found + token.size());
    }
    if (rest.empty()) {
        fragments.erase(it);
    } else {
        it->text = rest;
    }
}

}  // namespace

std::vector<Fragment> split_special_tokens(const Vocab& vocab, std::string_view text, bool parse_special) {
    std::list<Fragment> fragments;
    if (!text.empty()) fragments.push_back({-1, text});
    for (const std::int32_t id : vocab.special_tokens_longest_first()) {
        const TokenData& token = vocab.token(id);
        if (!splits_out(token.type, parse_special) || token.text.empty()) continue;
        for (auto it = fragments.begin(); it != fragments.end();) {
            const auto next = std::next(it);
            if (it->id < 0) cut(fragments, it, id, token.text);
            it = next;
        }
    }
    return {fragments.begin(), fragments.end()};
}

}  // namespace forge::llm
