#include "app/transcript_format.h"

#include "core/error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace forge::app {
namespace {

// A subtitle cue holds at most this many words or seconds.
constexpr std::size_t kCueWords = 12;
constexpr double kCueSeconds = 6.0;

// Seconds rounded to the millisecond, the resolution every format prints.
double milliseconds(double seconds) { return std::round(seconds * 1000.0) / 1000.0; }

// hh:mm:ss followed by `separator` and milliseconds (SRT ',', WebVTT '.').
std::string timestamp(double seconds, char separator) {
    const auto ms = static_cast<long long>(std::llround(std::max(seconds, 0.0) * 1000.0));
    return fmt::format("{:02}:{:02}:{:02}{}{:03}", ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, separator, ms % 1000);
}

}  // namespace

TranscriptFormat parse_transcript_format(const std::string& name) {
    if (name == "text") return TranscriptFormat::Text;
    if (name == "json") return TranscriptFormat::Json;
    if (name == "srt") return TranscriptFormat::Srt;
    if (name == "vtt") return TranscriptFormat::Vtt;
    fail("--format: '{}' is not one of text, json, srt, vtt", name);
}

std::string TranscriptWriter::next(const asr::Transcript& t, const std::string& source, double real_time_factor) {
    switch (format_) {
        case TranscriptFormat::Text: return t.text + "\n";
        case TranscriptFormat::Json: {
            nlohmann::json words = nlohmann::json::array();
            for (const asr::Word& w : t.words) words.push_back({{"word", w.text}, {"start", milliseconds(w.start)}, {"end", milliseconds(w.end)}});
            const nlohmann::json j = {{"file", source},       {"text", t.text},
                                      {"words", words},       {"duration", milliseconds(t.duration)},
                                      {"real_time_factor", real_time_factor}};
            return j.dump() + "\n";
        }
        case TranscriptFormat::Srt:
        case TranscriptFormat::Vtt: return subtitles(t);
    }
    return {};
}

std::string TranscriptWriter::subtitles(const asr::Transcript& t) {
    const bool vtt = format_ == TranscriptFormat::Vtt;
    std::string out = vtt && inputs_ == 0 ? "WEBVTT\n\n" : "";
    const char separator = vtt ? '.' : ',';
    for (std::size_t first = 0; first < t.words.size();) {
        std::size_t last = first;
        std::string text = t.words[first].text;
        while (last + 1 < t.words.size() && last + 1 - first < kCueWords &&
               t.words[last + 1].end - t.words[first].start <= kCueSeconds) {
            text += " " + t.words[++last].text;
        }
        ++cues_;
        if (!vtt) out += fmt::format("{}\n", cues_);
        out += fmt::format("{} --> {}\n{}\n\n", timestamp(offset_ + t.words[first].start, separator),
                           timestamp(offset_ + t.words[last].end, separator), text);
        first = last + 1;
    }
    offset_ += t.duration;
    ++inputs_;
    return out;
}

}  // namespace forge::app
