// A transcript as forge transcribe prints it: text (one line), JSON (text, words with start and
// end seconds, duration, real-time factor), SubRip (.srt) or WebVTT (.vtt) subtitles.
#pragma once

#include "models/asr/transcriber.h"

#include <string>

namespace forge::app {

enum class TranscriptFormat { Text, Json, Srt, Vtt };

TranscriptFormat parse_transcript_format(const std::string& name);  // text, json, srt, vtt

// The transcripts of one run, one after another, as one document on stdout. Text gives a line
// per input, JSON an object per line (JSON Lines). Subtitles are one document in which the
// inputs follow each other as if played in a row: one WEBVTT header, cues numbered across the
// inputs (SRT), and each input's times offset by the durations of the inputs before it
// (concatenated documents had a header or a cue 1 per input: invalid SRT and WebVTT).
class TranscriptWriter {
public:
    explicit TranscriptWriter(TranscriptFormat format) : format_(format) {}

    // The text to print for the next transcript. `source` names the input in JSON;
    // `real_time_factor` is processing seconds per audio second.
    std::string next(const asr::Transcript& t, const std::string& source, double real_time_factor);

private:
    std::string subtitles(const asr::Transcript& t);

    TranscriptFormat format_;
    int inputs_ = 0;        // transcripts written so far
    int cues_ = 0;          // cues written so far
    double offset_ = 0.0;   // seconds of the inputs before this one
};

}  // namespace forge::app
