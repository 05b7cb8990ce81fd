#include "models/asr/manifest.h"

#include "core/error.h"
#include "core/json.h"

#include <fstream>

namespace forge::asr {
namespace {

// Manifest objects are flat; a little nesting in ignored fields is tolerated.
constexpr int kMaxDepth = 8;

Utterance parse_line(const std::string& line, const std::string& where, const std::filesystem::path& folder) {
    const nlohmann::json j = parse_json(std::string_view(line), where, kMaxDepth);
    if (!j.is_object()) fail_format("{}: expected a JSON object", where);
    auto field = [&](const char* name) -> const nlohmann::json& {
        if (!j.contains(name)) fail_format("{}: missing \"{}\"", where, name);
        return j.at(name);
    };
    const nlohmann::json& audio = field("audio");
    const nlohmann::json& text = field("text");
    const nlohmann::json& duration = field("duration");
    if (!audio.is_string() || audio.get<std::string>().empty())
        fail_format("{}: \"audio\" must be a non-empty string", where);
    if (!text.is_string()) fail_format("{}: \"text\" must be a string", where);
    if (!duration.is_number() || !(duration.get<double>() > 0.0))
        fail_format("{}: \"duration\" must be a positive number of seconds", where);
    Utterance u;
    const std::filesystem::path path(audio.get<std::string>());
    u.audio = path.is_absolute() ? path : folder / path;
    u.text = text.get<std::string>();
    u.duration = duration.get<double>();
    if (j.contains("voice")) {
        if (!j["voice"].is_string()) fail_format("{}: \"voice\" must be a string", where);
        u.voice = j["voice"].get<std::string>();
    }
    return u;
}

}  // namespace

std::vector<Utterance> load_manifest(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw Error(fmt::format("{}: cannot open the manifest", path.string()));
    const std::filesystem::path folder = path.parent_path();
    std::vector<Utterance> out;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        out.push_back(parse_line(line, fmt::format("{}:{}", path.string(), number), folder));
    }
    if (out.empty()) fail_format("{}: the manifest lists no utterances", path.string());
    return out;
}

}  // namespace forge::asr
