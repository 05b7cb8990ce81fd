#include "models/nam/nam_file.h"

#include "core/error.h"
#include "core/json.h"
#include "models/nam/json_reader.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>

namespace forge::nam {
namespace {

struct Version {
    int major = 0, minor = 0, patch = 0;
    auto operator<=>(const Version&) const = default;
};

// "MAJOR.MINOR.PATCH", each a run of decimal digits, nothing else.
std::optional<Version> parse_version(std::string_view text) {
    Version v;
    int* parts[] = {&v.major, &v.minor, &v.patch};
    const char* at = text.data();
    const char* const end = text.data() + text.size();
    for (int i = 0; i < 3; ++i) {
        if (i > 0 && (at == end || *at++ != '.')) return std::nullopt;
        if (at == end || *at < '0' || *at > '9') return std::nullopt;  // from_chars would take a sign
        const auto [next, error] = std::from_chars(at, end, *parts[i]);
        if (error != std::errc{}) return std::nullopt;
        at = next;
    }
    if (at != end) return std::nullopt;
    return v;
}

std::optional<double> optional_number(const nlohmann::json& object, const char* key) {
    if (!object.is_object()) return std::nullopt;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

// metadata.training.data.latency: the manual value when the user gave one, else the
// calibration's recommendation (the trainer's layout since 0.5.4).
std::optional<int> read_latency(const nlohmann::json& training) {
    const auto data = training.find("data");
    if (data == training.end() || !data->is_object()) return std::nullopt;
    const auto latency = data->find("latency");
    if (latency == data->end() || !latency->is_object()) return std::nullopt;
    // Latencies outside [-1 s, 1 s] at 192 kHz are nonsense (and would not fit an int).
    auto samples = [](std::optional<double> value) -> std::optional<int> {
        if (!value || !(std::fabs(*value) <= 192000.0)) return std::nullopt;
        return static_cast<int>(*value);
    };
    if (auto manual = samples(optional_number(*latency, "manual"))) return manual;
    const auto calibration = latency->find("calibration");
    if (calibration == latency->end()) return std::nullopt;
    return samples(optional_number(*calibration, "recommended"));
}

Metadata read_metadata(const nlohmann::json& document) {
    Metadata m;
    const auto it = document.find("metadata");
    if (it == document.end() || !it->is_object()) return m;
    m.raw = *it;
    m.loudness = optional_number(*it, "loudness");
    m.gain = optional_number(*it, "gain");
    m.input_level_dbu = optional_number(*it, "input_level_dbu");
    m.output_level_dbu = optional_number(*it, "output_level_dbu");
    const auto training = it->find("training");
    if (training != it->end() && training->is_object()) {
        m.validation_esr = optional_number(*training, "validation_esr");
        m.latency = read_latency(*training);
    }
    return m;
}

std::vector<float> read_weights(const JsonReader& root) {
    const JsonReader list = root.child("weights");
    const std::size_t n = list.array_size();
    std::vector<float> weights(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& v = list.value()[i];
        if (!v.is_number()) list.fail(fmt::format("element {} is not a number", i));
        const double w = v.get<double>();
        // A double beyond float's range would become inf (and converting it is undefined).
        if (!(std::fabs(w) <= std::numeric_limits<float>::max()))
            list.fail(fmt::format("element {} ({}) is out of the float range", i, w));
        weights[i] = static_cast<float>(w);
    }
    return weights;
}

}  // namespace

VersionSupport version_support(std::string_view version) {
    const auto parsed = parse_version(version);
    const Version earliest = *parse_version(kEarliestVersion);
    const Version latest = *parse_version(kLatestVersion);
    if (!parsed || *parsed < earliest) return VersionSupport::None;
    if (parsed->major != latest.major || parsed->minor > latest.minor) return VersionSupport::None;
    return *parsed <= latest ? VersionSupport::Full : VersionSupport::Partial;
}

NamFile parse_nam(const nlohmann::json& document, const std::string& source) {
    const JsonReader root(document, source, "");
    if (!document.is_object()) root.fail("a .nam file is a JSON object");
    NamFile file;
    file.source = source;
    file.version = root.string("version");
    const VersionSupport support = version_support(file.version);
    if (support == VersionSupport::None)
        root.fail_field("version", fmt::format("unsupported .nam version {} (supported: {} to {}, 0.7.x partially)",
                                               file.version, kEarliestVersion, kLatestVersion));
    file.partially_supported = support == VersionSupport::Partial;
    file.architecture = root.string("architecture");
    file.config = root.child("config").value();
    file.weights = read_weights(root);
    if (root.has("sample_rate")) {
        file.sample_rate = root.number("sample_rate");
        if (!(*file.sample_rate >= kMinSampleRate && *file.sample_rate <= kMaxSampleRate))
            root.fail_field("sample_rate", fmt::format("{} Hz is outside [{}, {}]", *file.sample_rate, kMinSampleRate,
                                                       kMaxSampleRate));
    }
    file.metadata = read_metadata(document);
    return file;
}

NamFile read_nam_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail_format("{}: cannot open the file", path.string());
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    // A .nam file is a JSON object: anything else (a WAV, a GGUF, a text file) is named as
    // the wrong kind of file, not answered with the JSON parser's complaint about its first
    // byte. A broken JSON object still gets the parser's position.
    const auto first = text.find_first_not_of(" \t\r\n");
    check_format(first != std::string::npos && text[first] == '{', "{}: not a .nam file (JSON expected)",
                 path.string());
    return parse_nam(parse_json(std::string_view(text), path.string(), kMaxJsonDepth), path.string());
}

}  // namespace forge::nam
