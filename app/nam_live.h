// `forge nam live`: play through a .nam model in real time (models/nam/live/live_engine.h on
// an audio stream, core/audio/live_stream.h), with a status line and --record.
#pragma once

#include "app/commands.h"
#include "models/nam/nam_file.h"

#include <string>

namespace forge::app {

void add_nam_live_command(CLI::App& nam, CommandTable& commands);

// Defined in app/nam.cpp, shared by the nam commands: the model argument ("default": the
// bundled model) read, with a warning for a file newer than forge knows.
nam::NamFile load_nam_model(const std::string& model);

}  // namespace forge::app
