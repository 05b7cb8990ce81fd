// The tiny training run the GPT tests share (and tools/make_gpt_llama_goldens.py repeats on
// the command line): a depth-1 model on test/data/gpt/corpus.txt with the 511-token BPE
// vocabulary of test/data/llm/qwen3-f32.gguf.
#pragma once

#include "models/gpt/trainer.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace forge::gpt::testing {

inline std::filesystem::path scratch_dir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("forge_gpt_test_" + name);
    std::filesystem::remove_all(dir);
    return dir;
}

inline TrainConfig tiny_config(const std::filesystem::path& out_dir) {
    TrainConfig c;
    c.data = {std::filesystem::path(FORGE_TEST_DATA_DIR) / "gpt" / "corpus.txt"};
    c.tokenizer = std::filesystem::path(FORGE_TEST_DATA_DIR) / "llm" / "qwen3-f32.gguf";
    c.out_dir = out_dir;
    c.depth = 1;
    c.seq_len = 32;
    c.batch = 4;
    c.steps = 12;
    c.seed = 1;
    c.eval_every = 6;
    c.checkpoint_every = 3;
    c.eval_tokens = 256;
    c.sample_tokens = 4;
    c.optimizer.matrix_lr = 2.0f;  // the batch of 128 tokens scales every rate by 1/64
    c.optimizer.embedding_lr = 20.0f;
    c.optimizer.unembedding_lr = 0.4f;
    return c;
}

inline std::vector<double> log_losses(const std::filesystem::path& dir) {
    std::vector<double> out;
    std::ifstream in(dir / "log.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line).at("loss").get<double>());
    return out;
}

// The whole file, for comparing exports and checkpoints byte for byte.
inline std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace forge::gpt::testing
