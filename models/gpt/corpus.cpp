#include "models/gpt/corpus.h"

#include "core/error.h"
#include "core/random/counter_rng.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>

namespace forge::gpt {
namespace {

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    check(in.good(), "--data {}: cannot read the file", path.string());
    std::ostringstream text;
    text << in.rdbuf();
    check(!in.bad(), "--data {}: read error", path.string());
    return text.str();
}

// Runs of non-empty lines (a line of only spaces or tabs counts as empty).
std::vector<std::string> documents_of(const std::string& text) {
    std::vector<std::string> docs;
    std::string current;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) {
            if (!current.empty()) docs.push_back(std::move(current));
            current.clear();
            continue;
        }
        if (!current.empty()) current += '\n';
        current += line;
    }
    if (!current.empty()) docs.push_back(std::move(current));
    return docs;
}

}  // namespace

Corpus load_corpus(std::span<const std::filesystem::path> files, const llm::Tokenizer& tokenizer,
                   std::int64_t seq_len, double val_fraction) {
    const std::int32_t bos = tokenizer.bos_id();
    check(bos >= 0, "--tokenizer: the vocabulary has no BOS token (tokenizer.ggml.bos_token_id)");
    Corpus corpus;
    std::vector<std::int32_t> stream;
    for (const auto& path : files) {
        const std::string text = read_text(path);
        corpus.text_bytes += static_cast<std::int64_t>(text.size());
        for (const std::string& doc : documents_of(text)) {
            stream.push_back(bos);
            const auto ids = tokenizer.encode(doc, /*add_special=*/false, /*parse_special=*/false);
            stream.insert(stream.end(), ids.begin(), ids.end());
            ++corpus.documents;
        }
    }
    const auto total = static_cast<std::int64_t>(stream.size());
    const std::int64_t window = seq_len + 1;
    const std::int64_t val_size = std::max(window, static_cast<std::int64_t>(val_fraction * static_cast<double>(total)));
    check(total - val_size >= window, "--data: {} tokens in {} documents is too little for --seq-len {} (need {})",
          total, corpus.documents, seq_len, val_size + window);
    corpus.train.assign(stream.begin(), stream.end() - val_size);
    corpus.val.assign(stream.end() - val_size, stream.end());
    corpus.token_bytes.resize(static_cast<std::size_t>(tokenizer.n_vocab()));
    for (std::int32_t id = 0; id < tokenizer.n_vocab(); ++id) {
        corpus.token_bytes[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(tokenizer.token_to_piece(id).size());
    }
    return corpus;
}

std::vector<std::int64_t> epoch_order(std::uint64_t seed, std::int64_t epoch, std::int64_t n) {
    const std::uint64_t key = random::stream_key(seed, 0xda7a, static_cast<std::uint64_t>(epoch));
    std::vector<std::uint64_t> sort_keys(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) sort_keys[i] = random::random_bits(key, static_cast<std::uint64_t>(i));
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return sort_keys[a] != sort_keys[b] ? sort_keys[a] < sort_keys[b] : a < b;
    });
    return order;
}

RowSampler::RowSampler(std::span<const std::int32_t> tokens, std::int64_t seq_len, std::uint64_t seed)
    : tokens_(tokens), seq_len_(seq_len), windows_((static_cast<std::int64_t>(tokens.size()) - 1) / seq_len),
      seed_(seed) {
    check(windows_ >= 1, "{} tokens make no window of {} + 1", tokens.size(), seq_len);
}

std::int64_t RowSampler::window_of(std::int64_t row) {
    const std::int64_t epoch = row / windows_;
    if (epoch != epoch_) {
        order_ = epoch_order(seed_, epoch, windows_);
        epoch_ = epoch;
    }
    return order_[static_cast<std::size_t>(row % windows_)];
}

void RowSampler::rows(std::int64_t first, std::int64_t count, Tensor& inputs, Tensor& targets) {
    inputs = Tensor::empty({count, seq_len_}, DType::I32);
    targets = Tensor::empty({count, seq_len_}, DType::I32);
    auto* in = inputs.data<std::int32_t>();
    auto* out = targets.data<std::int32_t>();
    for (std::int64_t r = 0; r < count; ++r) {
        const std::int32_t* w = tokens_.data() + window_of(first + r) * seq_len_;
        std::copy(w, w + seq_len_, in + r * seq_len_);
        std::copy(w + 1, w + 1 + seq_len_, out + r * seq_len_);
    }
}

}  // namespace forge::gpt
