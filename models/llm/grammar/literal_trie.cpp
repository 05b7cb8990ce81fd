#include "models/llm/grammar/literal_trie.h"

#include "core/error.h"
#include "models/llm/grammar/grammar_limits.h"

#include <fmt/format.h>

#include <cstdint>
#include <utility>

namespace forge::llm::grammar {

namespace {

using Sequence = GrammarBuilder::Sequence;

struct TrieNode {
    std::vector<std::pair<std::uint8_t, std::uint32_t>> children;  // byte, node; in first-seen order
    bool ends = false;                                              // a text ends here
};

std::vector<TrieNode> build_trie(const std::vector<std::string>& texts) {
    std::vector<TrieNode> nodes(1);
    for (const std::string& text : texts) {
        std::uint32_t node = 0;
        for (char c : text) {
            const auto b = static_cast<std::uint8_t>(c);
            std::uint32_t next = 0;
            for (const auto& [byte, child] : nodes[node].children) {
                if (byte == b) next = child;
            }
            if (next == 0) {
                next = static_cast<std::uint32_t>(nodes.size());
                nodes[node].children.emplace_back(b, next);
                nodes.emplace_back();
            }
            node = next;
        }
        nodes[node].ends = true;
    }
    return nodes;
}

}  // namespace

Symbol literal_choice(GrammarBuilder& builder, const std::vector<std::string>& texts) {
    check(!texts.empty(), "grammar: a choice among no strings");
    std::size_t total = 0;
    for (const std::string& text : texts) total += text.size();
    if (total > kMaxChoiceBytes)
        throw GrammarLimitError(fmt::format("the values are {} bytes together, over the supported {}", total, kMaxChoiceBytes));
    const std::vector<TrieNode> nodes = build_trie(texts);
    // A node's rule is needed where the trie branches or a text ends with more to follow; a
    // chain of single children is written as its bytes. Children come after their parents, so
    // going backwards every child's rule exists before its parent needs it.
    std::vector<Symbol> rules(nodes.size());
    const auto from = [&](std::uint32_t node) {  // the bytes of a chain from `node`, then its rule
        Sequence sequence;
        while (!nodes[node].ends && nodes[node].children.size() == 1) {
            sequence.push_back(builder.byte(nodes[node].children[0].first));
            node = nodes[node].children[0].second;
        }
        if (!nodes[node].children.empty()) sequence.push_back(rules[node]);
        return sequence;
    };
    for (std::size_t n = nodes.size(); n-- > 0;) {
        const TrieNode& node = nodes[n];
        if (node.children.empty() || (node.children.size() == 1 && !node.ends)) continue;
        std::vector<Sequence> alternatives;
        if (node.ends) alternatives.emplace_back();
        for (const auto& [byte, child] : node.children) {
            Sequence alternative{builder.byte(byte)};
            const Sequence rest = from(child);
            alternative.insert(alternative.end(), rest.begin(), rest.end());
            alternatives.push_back(std::move(alternative));
        }
        rules[n] = builder.rule("choice", std::move(alternatives));
    }
    return builder.rule("enum", {from(0)});
}

}  // namespace forge::llm::grammar
