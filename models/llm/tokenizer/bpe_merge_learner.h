// The merge loop of byte-level BPE training (Sennrich et al. 2016; GPT-2's byte-level
// variant): start from the 256 byte tokens, then repeatedly make the most frequent adjacent
// pair of tokens a new token, until the vocabulary has the size asked for.
//
// Recounting every pair after each merge would cost a pass over all words per merge. Instead
// the counts are kept up to date: a merge visits only the words that contain its pair (an
// index from pair to words), moves their pair counts by the difference, and pushes each
// changed count onto a priority queue. An entry whose count no longer matches is stale and
// skipped when it reaches the top (every change pushed a fresh entry), so the top valid entry
// is always the most frequent pair. This is the scheme of Hugging Face tokenizers' BpeTrainer
// and of karpathy's rustbpe (nanochat).
//
// Ties go to the smaller pair (left id, then right id), so the merges depend only on the
// word counts, never on hash-table order: training is deterministic.
#pragma once

#include "models/llm/tokenizer/word_counts.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace forge::llm {

struct BpeMerge {
    std::int32_t left = 0, right = 0;  // token ids
    std::int32_t result = 0;           // the merged token's id
    std::int64_t count = 0;            // occurrences in the corpus when merged
};

struct LearnedBpe {
    // Raw bytes of every token by id: ids 0..255 are the single bytes, then one per new token.
    std::vector<std::string> tokens;
    std::vector<BpeMerge> merges;  // in the order learned (= merge rank)
};

struct MergeProgress {
    std::int32_t tokens = 0, target = 0;
};

// Learns merges until there are `n_tokens` tokens (bytes included), or no pair is left to
// merge (then fewer). `progress` is called now and then.
LearnedBpe learn_bpe_merges(std::span<const WordCount> words, std::int32_t n_tokens,
                            const std::function<void(const MergeProgress&)>& progress = {});

}  // namespace forge::llm
