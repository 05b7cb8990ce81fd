// Writing a trained GPT as a GGUF that llama.cpp's `qwen3` architecture (and forge's own
// models/llm) runs: f32 weights under their GGUF names, the norms the model trains without
// written as ones, the embedding-row norm folded into token_embd (gpt_config.h), and every
// tokenizer.* key (vocabulary, merges, special ids, chat template) copied from the
// tokenizer's GGUF. The file appears atomically.
#pragma once

#include "models/gpt/gpt_model.h"

#include <filesystem>
#include <string>

namespace forge::gguf {
class GgufFile;
}

namespace forge::gpt {

void export_gguf(const GptModel& model, const gguf::GgufFile& tokenizer, const std::string& name,
                 const std::filesystem::path& path);

}  // namespace forge::gpt
