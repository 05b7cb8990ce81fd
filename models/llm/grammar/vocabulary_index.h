// The vocabulary as the grammar engine sees it, built once per tokenizer and shared by every
// constrained request (it is immutable): each token's bytes (the text it adds to the output,
// as the streaming detokenizer prints it) in a trie, and the end-of-generation tokens.
//
// The trie is stored flat in preorder, each node with its depth and the end of its subtree,
// so the mask walks it with a loop and skips a whole subtree when the grammar rejects its
// first byte: tokens that share a prefix share the work of matching it.
//
//   auto index = std::make_shared<const grammar::VocabularyIndex>(tokenizer);  // once per model
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace forge::llm {
class Tokenizer;
}

namespace forge::llm::grammar {

class VocabularyIndex {
public:
    struct Node {
        std::uint8_t byte = 0;          // the edge into this node
        std::uint16_t depth = 0;        // bytes from the root (the root is node 0, depth 0)
        std::uint32_t subtree_end = 0;  // first node after this node's subtree
        std::uint32_t token_begin = 0, token_end = 0;  // tokens whose bytes end here (in tokens())
    };

    explicit VocabularyIndex(const Tokenizer& tokenizer);

    std::int32_t n_vocab() const { return n_vocab_; }
    std::span<const Node> nodes() const { return nodes_; }
    std::span<const std::int32_t> node_tokens(const Node& node) const {
        return std::span(tokens_).subspan(node.token_begin, node.token_end - node.token_begin);
    }
    std::size_t max_depth() const { return max_depth_; }
    // The bytes token `id` adds to the text ("" for control tokens, which a grammar never allows).
    const std::string& piece(std::int32_t id) const { return pieces_[id]; }
    std::span<const std::int32_t> end_of_generation() const { return end_of_generation_; }

private:
    std::int32_t n_vocab_ = 0;
    std::vector<Node> nodes_;
    std::vector<std::int32_t> tokens_;
    std::vector<std::string> pieces_;
    std::vector<std::int32_t> end_of_generation_;
    std::size_t max_depth_ = 0;
};

}  // namespace forge::llm::grammar
