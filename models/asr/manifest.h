// The utterance list of a speech data set: a JSONL manifest as tools/make_asr_data.sh writes it
// (and NeMo's manifests look), one object per line with "audio" (a path, relative to the
// manifest's folder unless absolute), "text" (the transcript) and "duration" (seconds);
// "voice" is optional. Other fields are ignored.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace forge::asr {

struct Utterance {
    std::filesystem::path audio;  // resolved against the manifest's folder
    std::string text;
    double duration = 0.0;        // seconds, > 0
    std::string voice;            // "" when the manifest has none
};

// Every error names the file, the line and the field. Blank lines are skipped; an empty
// manifest is an error (nothing to train on).
std::vector<Utterance> load_manifest(const std::filesystem::path& path);

}  // namespace forge::asr
