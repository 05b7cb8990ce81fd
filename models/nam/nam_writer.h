// Writing .nam files in the current (0.7.0) layout: version, metadata (date, loudness, gain,
// levels, training report with validation ESR and latency), architecture, config, weights,
// sample_rate. Floats are written in their shortest round-trip form (std::to_chars), so a
// file read back gives bit-identical weights. The file appears atomically (temporary file in
// the same folder, then rename).
#pragma once

#include "models/nam/nam_file.h"

#include <filesystem>
#include <string>

namespace forge::nam {

// The document for `file`, with version set to kLatestVersion and a date added if absent.
std::string format_nam(const NamFile& file);

void write_nam_file(const std::filesystem::path& path, const NamFile& file);

}  // namespace forge::nam
