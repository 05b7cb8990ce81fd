// A BERT-family GGUF (bert, nomic-bert) as an llm::EmbeddingModel: WordPiece tokens in, the
// pooled vector out (mean or cls, as the file's {arch}.pooling_type says), or for a reranker
// (pooling rank: bge-reranker) the classifier head's one relevance score.
#pragma once

#include "models/llm/embedding_model.h"

#include <memory>
#include <string>

namespace forge::bert {

// Opens and validates `path` (every key and tensor checked before the first is used); throws
// FormatError naming the file and the key or tensor.
std::unique_ptr<llm::EmbeddingModel> load_embedding_model(const std::string& path);

// Whether `architecture` (general.architecture) is one this family loads: a dispatcher asks
// before it opens the file as another family's.
bool is_bert_architecture(const std::string& architecture);

}  // namespace forge::bert
