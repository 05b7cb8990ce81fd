// A BERT-family GGUF (bert, nomic-bert) as an llm::EmbeddingModel: WordPiece tokens in, the
// pooled vector out (mean or cls, as the file's {arch}.pooling_type says), or for a reranker
// (pooling rank: bge-reranker) the classifier head's one relevance score.
#pragma once

#include "models/llm/embedding_model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace forge::bert {

// Opens and validates `path` (every key and tensor checked before the first is used); throws
// FormatError naming the file and the key or tensor.
std::unique_ptr<llm::EmbeddingModel> load_embedding_model(const std::string& path);
// The same, from a file already open (its architecture read by the caller).
std::unique_ptr<llm::EmbeddingModel> load_embedding_model(gguf::GgufFile file);

// A cross-encoder's input for one (query, document) pair, as BERT rerankers were trained on it:
// [CLS] query [SEP] document [SEP] (special tokens in the texts are not parsed).
std::vector<std::int32_t> pair_tokens(const llm::Tokenizer& tokenizer, std::string_view query,
                                      std::string_view document);

// Whether `architecture` (general.architecture) is one this family loads: a dispatcher asks
// before it opens the file as another family's.
bool is_bert_architecture(const std::string& architecture);

}  // namespace forge::bert
