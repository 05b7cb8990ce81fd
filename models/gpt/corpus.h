// Training text as token ids: documents from text files, each starting with the BOS token,
// packed end to end into one stream, the last part held out for validation.
//
// A document is a run of non-empty lines: blank lines separate documents (paragraphs of
// prose, one address of a collection), and every file ends one. Training rows are windows
// of T+1 tokens (T inputs, T shifted targets) starting at multiples of T; each epoch visits
// them in an order drawn from (seed, epoch) alone, so the rows of any step are a pure
// function of (seed, step) and a resumed run reads exactly what an uninterrupted one does.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace forge::llm {
class Tokenizer;
}

namespace forge::gpt {

struct Corpus {
    std::vector<std::int32_t> train, val;
    std::vector<std::int32_t> token_bytes;  // UTF-8 bytes each vocabulary id stands for (0: special)
    std::int64_t documents = 0;
    std::int64_t text_bytes = 0;
};

// Reads and tokenizes `files`; the last `val_fraction` of the stream (at least one window of
// `seq_len` + 1 tokens) is the validation split. Throws naming the file on unreadable input,
// and when there is too little text for one training and one validation window.
Corpus load_corpus(std::span<const std::filesystem::path> files, const llm::Tokenizer& tokenizer,
                   std::int64_t seq_len, double val_fraction = 0.05);

// The order in which epoch `epoch` visits `n` rows: a permutation drawn from (seed, epoch) alone.
std::vector<std::int64_t> epoch_order(std::uint64_t seed, std::int64_t epoch, std::int64_t n);

// Windows of `seq_len` + 1 tokens over a token stream.
class RowSampler {
public:
    RowSampler(std::span<const std::int32_t> tokens, std::int64_t seq_len, std::uint64_t seed);
    std::int64_t windows() const { return windows_; }
    // Rows [first, first + count) of the run's row sequence (row r = step * batch + i):
    // inputs and targets, both [count, seq_len] i32.
    void rows(std::int64_t first, std::int64_t count, Tensor& inputs, Tensor& targets);

private:
    std::int64_t window_of(std::int64_t row);

    std::span<const std::int32_t> tokens_;
    std::int64_t seq_len_, windows_;
    std::uint64_t seed_;
    std::int64_t epoch_ = -1;
    std::vector<std::int64_t> order_;  // the current epoch's window order
};

}  // namespace forge::gpt
