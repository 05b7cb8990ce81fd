// A transcript as forge transcribe prints it: text (one line), JSON (text, words with start and
// end seconds, duration, real-time factor), SubRip (.srt) or WebVTT (.vtt) subtitles.
#pragma once

#include "models/asr/transcriber.h"

#include <string>

namespace forge::app {

enum class TranscriptFormat { Text, Json, Srt, Vtt };

TranscriptFormat parse_transcript_format(const std::string& name);  // text, json, srt, vtt

// `source` names the input in JSON; `real_time_factor` is processing seconds per audio second.
std::string format_transcript(const asr::Transcript& t, TranscriptFormat format, const std::string& source,
                              double real_time_factor);

}  // namespace forge::app
