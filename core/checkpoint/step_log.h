// A training run's log.jsonl (one JSON object per step, {"step": N, ...}) cut back to the
// checkpoint it resumes from. A run killed after its checkpoint logged steps that the resumed
// run takes again, and a kill while a line was written leaves that line torn.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>

namespace forge::checkpoint {

// Rewrites `path` (atomically) keeping the lines whose "step" is an integer <= `step`. A line
// that is not such an object (torn by a kill, or edited by hand) is dropped with the later
// steps: it is parsed with a small depth bound, so even a hostile line costs only its length.
void truncate_step_log(const std::filesystem::path& path, std::int64_t step);

// The log, open for appending: emptied for a new run, cut back to `resumed_step` for a
// resumed one. Either way it is first written atomically (atomic_file.h), so the lines go
// to the regular file forge just made: a symbolic link planted at `path` is refused, not
// followed, as for every file forge writes.
std::ofstream open_step_log(const std::filesystem::path& path, std::optional<std::int64_t> resumed_step);

}  // namespace forge::checkpoint
