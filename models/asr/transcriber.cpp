#include "models/asr/transcriber.h"

#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "models/asr/vocabulary.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace forge::asr {
namespace {

DecoderChoice resolve(const ParakeetConfig& config, DecoderChoice choice) {
    if (choice == DecoderChoice::Auto) return has_transducer(config.arch) ? DecoderChoice::Transducer : DecoderChoice::Ctc;
    check(choice != DecoderChoice::Ctc || has_ctc_head(config.arch), "the {} model has no CTC head",
          arch_name(config.arch));
    check(choice != DecoderChoice::Transducer || has_transducer(config.arch), "the {} model has no transducer",
          arch_name(config.arch));
    return choice;
}

}  // namespace

Transcriber::Transcriber(const ParakeetModel& model) : model_(model) {
    check(model.log_mel.has_value(), "transcriber: the model has no log-mel front end (load it from a file)");
}

Hypothesis Transcriber::decode_window(std::span<const float> samples, DecoderChoice decoder,
                                      std::int64_t max_symbols) const {
    const ag::NoGradScope no_grad;
    const ParakeetConfig& c = model_.config;
    const Tensor encoded = model_.encode((*model_.log_mel)(samples));  // [T', d_model]
    if (resolve(c, decoder) == DecoderChoice::Ctc) return ctc_greedy((*model_.ctc)(encoded), c.blank_id);
    return transducer_greedy(encoded, *model_.prediction, *model_.joint,
                             {c.blank_id, c.transducer.durations, max_symbols});
}

Transcript Transcriber::operator()(std::span<const float> samples, const TranscribeOptions& options) const {
    const ParakeetConfig& c = model_.config;
    check(options.window_seconds > 0.0 && options.overlap_seconds >= 0.0 &&
              options.overlap_seconds < options.window_seconds,
          "transcribe: the window ({} s) must be longer than its overlap ({} s)", options.window_seconds,
          options.overlap_seconds);
    const double rate = static_cast<double>(c.preprocessor.sample_rate);
    const auto total = static_cast<std::int64_t>(samples.size());
    const auto window = std::max<std::int64_t>(1, std::llround(options.window_seconds * rate));
    const auto overlap = std::llround(options.overlap_seconds * rate);
    const std::int64_t step = window - overlap;
    std::vector<std::int64_t> tokens;
    std::vector<double> times;
    for (std::int64_t start = 0; start < total; start += step) {
        const std::int64_t length = std::min(window, total - start);
        const bool first = start == 0, last = start + length >= total;
        // This window keeps tokens in [own_begin, own_end) seconds.
        const double own_begin = first ? 0.0 : static_cast<double>(start + overlap / 2) / rate;
        const double own_end =
            last ? std::numeric_limits<double>::infinity() : static_cast<double>(start + window - overlap / 2) / rate;
        const Hypothesis h = decode_window(samples.subspan(static_cast<std::size_t>(start), static_cast<std::size_t>(length)),
                                           options.decoder, options.max_symbols);
        for (std::size_t i = 0; i < h.tokens.size(); ++i) {
            const double time = static_cast<double>(start) / rate + static_cast<double>(h.frames[i]) * c.frame_seconds();
            if (time < own_begin || time >= own_end) continue;
            tokens.push_back(h.tokens[i]);
            times.push_back(time);
        }
        if (last) break;
    }
    // The last encoder frame of a window is centred on its end (the STFT pads both sides):
    // times say when a token's frame starts, never later than the audio.
    const double duration = static_cast<double>(total) / rate;
    Transcript t = detokenize(c, tokens, times);
    for (Word& w : t.words) w.end = std::min(w.end, duration);
    t.duration = duration;
    return t;
}

Transcript detokenize(const ParakeetConfig& config, std::span<const std::int64_t> tokens,
                      std::span<const double> token_times) {
    const Vocabulary vocabulary(config.pieces);
    Transcript t;
    t.tokens.assign(tokens.begin(), tokens.end());
    t.token_times.assign(token_times.begin(), token_times.end());
    // A word is the run of tokens from one piece starting with "▁" to the next; its text is
    // what the vocabulary decodes them to.
    std::vector<std::int32_t> word;
    const auto close_word = [&] {
        if (word.empty()) return;
        t.words.back().text = vocabulary.decode(word);
        if (t.words.back().text.empty()) t.words.pop_back();
        word.clear();
    };
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string& piece = config.pieces.at(static_cast<std::size_t>(tokens[i]));
        if (piece.starts_with(kWordStart) || word.empty()) {
            close_word();
            t.words.push_back({"", token_times[i], token_times[i]});
        }
        word.push_back(static_cast<std::int32_t>(tokens[i]));
        t.words.back().end = token_times[i] + config.frame_seconds();
    }
    close_word();
    for (const Word& w : t.words) t.text += (t.text.empty() ? "" : " ") + w.text;
    return t;
}

}  // namespace forge::asr
