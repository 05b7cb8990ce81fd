// Embeddings per second of a BERT-family GGUF through bert::load_embedding_model: N short
// inputs (tools/bench_embed_bert/bench_embed_bert.mjs gives llama.cpp the same texts), each
// tokenized, then embedded BATCH at a time (1: each on its own, embed(); more: embed_batch(), as
// serve runs one request's inputs), after one warm-up input. Prints one JSON line.
//
//   build/tools/bench_embed_bert MODEL.gguf [N=512] [THREADS=2] [BATCH=1]
#include "core/thread_pool.h"
#include "models/bert/embedding_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// The i-th of the benchmark's short inputs (the .mjs side writes the same formula).
std::string input_text(int i) {
    static const char* const kWords[] = {"search", "vector", "query", "document", "the", "quick", "brown", "fox",
                                         "hello", "world", "model", "token", "rank", "score", "small", "fast"};
    std::string text = fmt::format("input {}:", i);
    for (int w = 0; w < 8; ++w) text += fmt::format(" {}", kWords[(i * 7 + w * 3) % 16]);
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        fmt::print(stderr, "usage: bench_embed_bert MODEL.gguf [N=512] [THREADS=2] [BATCH=1]\n");
        return 2;
    }
    const int n = argc > 2 ? std::atoi(argv[2]) : 512;
    const auto batch = static_cast<std::size_t>(std::max(1, argc > 4 ? std::atoi(argv[4]) : 1));
    forge::ThreadPool::set_global_threads(argc > 3 ? std::atoi(argv[3]) : 2);
    auto model = forge::bert::load_embedding_model(argv[1]);
    std::vector<std::vector<std::int32_t>> inputs;
    std::size_t tokens = 0;
    for (int i = 0; i < n; ++i) {
        inputs.push_back(model->tokenizer().encode(input_text(i), true, false));
        tokens += inputs.back().size();
    }
    model->embed(inputs[0]);  // warm-up: pages of the mapping, the pool's threads
    const auto start = std::chrono::steady_clock::now();
    double checksum = 0;
    for (std::size_t first = 0; first < inputs.size(); first += batch) {
        const std::span<const std::vector<std::int32_t>> group(inputs.data() + first, std::min(batch, inputs.size() - first));
        if (batch == 1) {
            checksum += model->embed(group.front())[0];
        } else {
            for (const auto& vector : model->embed_batch(group)) checksum += vector[0];
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("{{\"engine\": \"forge\", \"inputs\": {}, \"tokens\": {}, \"threads\": {}, \"batch\": {}, \"seconds\": {:.3f}, "
               "\"embeddings_per_s\": {:.1f}, \"checksum\": {:.6f}}}\n",
               n, tokens, forge::ThreadPool::global().size(), batch, seconds, n / seconds, checksum);
    return 0;
}
