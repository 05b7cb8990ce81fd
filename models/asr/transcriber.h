// Speech to text with a Parakeet model: 16 kHz mono samples -> log-mel -> encoder -> greedy
// decoding -> text and words with times.
//
// Long audio runs in windows (window_seconds long, overlapping by overlap_seconds), each one
// through the whole pipeline on its own, so memory stays bounded by one window whatever the
// length (attention is quadratic in the frames of a window). A token belongs to the window
// whose centre part holds it: each window keeps the tokens from half an overlap after its start
// to half an overlap before its end (the first from 0, the last to the end). Audio no longer
// than one window is one pass, exactly the model's own result.
#pragma once

#include "models/asr/greedy_decoding.h"
#include "models/asr/parakeet_model.h"

#include <span>
#include <string>
#include <vector>

namespace forge::asr {

enum class DecoderChoice { Auto, Ctc, Transducer };  // Auto: the transducer when the model has one

struct TranscribeOptions {
    DecoderChoice decoder = DecoderChoice::Auto;
    std::int64_t max_symbols = 10;  // transducer tokens per encoder frame at most
    double window_seconds = 30.0;
    double overlap_seconds = 4.0;
};

struct Word {
    std::string text;
    double start = 0.0, end = 0.0;  // seconds
};

struct Transcript {
    std::string text;
    std::vector<Word> words;
    std::vector<std::int64_t> tokens;
    std::vector<double> token_times;  // seconds, the start of each token's encoder frame
    double duration = 0.0;            // seconds of audio
};

class Transcriber {
public:
    explicit Transcriber(const ParakeetModel& model);

    // samples at the model's sample rate, mono.
    Transcript operator()(std::span<const float> samples, const TranscribeOptions& options = {}) const;

    // One window through the pipeline: tokens with their encoder frames.
    Hypothesis decode_window(std::span<const float> samples, DecoderChoice decoder, std::int64_t max_symbols) const;

private:
    const ParakeetModel& model_;
};

// Text and words from token ids and times: pieces joined, "▁" starts a word (a space); a
// word ends one encoder frame after its last token.
Transcript detokenize(const ParakeetConfig& config, std::span<const std::int64_t> tokens,
                      std::span<const double> token_times);

}  // namespace forge::asr
