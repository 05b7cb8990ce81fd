// A small SentencePiece-like subword vocabulary for a speech model, learned from transcripts:
// Vocabulary::characters() (the 28 pieces every text needs) plus the pieces of BPE merges
// (Sennrich et al. 2016, through models/llm/tokenizer/bpe_merge_learner.h) over the words of
// the transcripts, each word with its leading "▁". Merges never cross a word, so a piece is a
// word start ("▁th", "▁the") or a part of a word ("ing").
#pragma once

#include "models/asr/vocabulary.h"

#include <span>
#include <string>

namespace forge::asr {

// `size` pieces in all (>= 28); fewer when the transcripts run out of pairs to merge. Texts are
// normalised as Vocabulary::encode does; a character outside the 28 is an error naming it.
// Deterministic: the same transcripts give the same pieces.
Vocabulary train_subword_vocabulary(std::span<const std::string> transcripts, std::int32_t size);

}  // namespace forge::asr
