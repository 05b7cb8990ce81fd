#include "core/checkpoint/step_log.h"

#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "core/json.h"

#include <fstream>
#include <optional>
#include <string>

namespace forge::checkpoint {
namespace {

// A log line is a flat object; anything deeper is not one of ours.
constexpr int kMaxDepth = 4;

std::optional<std::int64_t> step_of(const std::string& line, const std::string& where) {
    try {
        const nlohmann::json entry = parse_json(std::string_view(line), where, kMaxDepth);
        if (!entry.is_object() || !entry.contains("step") || !entry["step"].is_number_integer()) return std::nullopt;
        return entry["step"].get<std::int64_t>();
    } catch (const FormatError&) {
        return std::nullopt;  // torn by a kill
    }
}

}  // namespace

void truncate_step_log(const std::filesystem::path& path, std::int64_t step) {
    std::ifstream in(path);
    std::string kept, line;
    while (std::getline(in, line)) {
        const std::optional<std::int64_t> logged = step_of(line, path.string());
        if (logged && *logged <= step) kept += line + '\n';
    }
    write_file_atomically(path, kept);
}

std::ofstream open_step_log(const std::filesystem::path& path, std::optional<std::int64_t> resumed_step) {
    if (resumed_step) {
        truncate_step_log(path, *resumed_step);
    } else {
        write_file_atomically(path, std::string_view{});
    }
    std::ofstream log(path, std::ios::app);
    check(log.good(), "cannot write {}", path.string());
    return log;
}

}  // namespace forge::checkpoint
