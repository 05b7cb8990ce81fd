#include "models/llm/grammar/vocabulary_index.h"

#include "core/error.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <algorithm>
#include <limits>

namespace forge::llm::grammar {

VocabularyIndex::VocabularyIndex(const Tokenizer& tokenizer) : n_vocab_(tokenizer.n_vocab()) {
    pieces_.resize(n_vocab_);
    std::vector<std::int32_t> order;
    for (std::int32_t id = 0; id < n_vocab_; ++id) {
        if (tokenizer.is_end_of_generation(id)) {
            end_of_generation_.push_back(id);
            continue;
        }
        pieces_[id] = tokenizer.token_to_piece(id);
        check(pieces_[id].size() < std::numeric_limits<std::uint16_t>::max(), "token {} is too long for the grammar trie", id);
        if (!pieces_[id].empty()) order.push_back(id);
    }
    std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return pieces_[a] < pieces_[b] || (pieces_[a] == pieces_[b] && a < b); });

    // Insert the sorted pieces; `path` holds the open nodes from the root down.
    nodes_.push_back({});
    std::vector<std::uint32_t> path{0};
    std::string_view previous;
    for (std::int32_t id : order) {
        const std::string_view piece = pieces_[id];
        std::size_t common = 0;
        while (common < previous.size() && common < piece.size() && previous[common] == piece[common]) ++common;
        while (path.size() > common + 1) {  // close the nodes past the common prefix
            nodes_[path.back()].subtree_end = static_cast<std::uint32_t>(nodes_.size());
            path.pop_back();
        }
        for (std::size_t k = common; k < piece.size(); ++k) {
            Node node;
            node.byte = static_cast<std::uint8_t>(piece[k]);
            node.depth = static_cast<std::uint16_t>(k + 1);
            node.token_begin = node.token_end = static_cast<std::uint32_t>(tokens_.size());
            path.push_back(static_cast<std::uint32_t>(nodes_.size()));
            nodes_.push_back(node);
        }
        Node& end = nodes_[path.back()];
        if (end.token_end != tokens_.size()) end.token_begin = static_cast<std::uint32_t>(tokens_.size());  // first token here
        tokens_.push_back(id);
        end.token_end = static_cast<std::uint32_t>(tokens_.size());
        max_depth_ = std::max(max_depth_, piece.size());
        previous = piece;
    }
    for (std::uint32_t node : path) nodes_[node].subtree_end = static_cast<std::uint32_t>(nodes_.size());
}

}  // namespace forge::llm::grammar
