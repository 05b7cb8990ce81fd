#include "models/nam/nam_writer.h"

#include "core/checkpoint/atomic_file.h"

#include <fmt/format.h>

#include <charconv>
#include <chrono>

namespace forge::nam {
namespace {

void append_float(std::string& out, float value) {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round trip
    out.append(buffer, result.ptr);
}

nlohmann::json today() {
    const auto now = std::chrono::system_clock::now();
    const auto days = std::chrono::floor<std::chrono::days>(now);
    const std::chrono::year_month_day ymd(days);
    const std::chrono::hh_mm_ss hms(std::chrono::floor<std::chrono::seconds>(now - days));
    return {{"year", static_cast<int>(ymd.year())},     {"month", static_cast<unsigned>(ymd.month())},
            {"day", static_cast<unsigned>(ymd.day())},  {"hour", hms.hours().count()},
            {"minute", hms.minutes().count()},          {"second", hms.seconds().count()}};
}

nlohmann::json metadata_of(const Metadata& m) {
    nlohmann::json j = m.raw.is_object() ? m.raw : nlohmann::json::object();
    if (!j.contains("date")) j["date"] = today();
    auto set = [&j](const char* key, const std::optional<double>& v) {
        if (v) j[key] = *v;
    };
    set("loudness", m.loudness);
    set("gain", m.gain);
    set("input_level_dbu", m.input_level_dbu);
    set("output_level_dbu", m.output_level_dbu);
    if (m.validation_esr || m.latency) {
        nlohmann::json& training = j["training"];
        if (!training.is_object()) training = nlohmann::json::object();
        if (m.validation_esr) training["validation_esr"] = *m.validation_esr;
        if (m.latency) training["data"]["latency"]["manual"] = *m.latency;
    }
    return j;
}

}  // namespace

std::string format_nam(const NamFile& file) {
    // nlohmann writes the small fields; the weights, by far the largest part, are appended by
    // hand so every float is printed as the shortest decimal that reads back to it.
    std::string out = "{\n";
    out += "  \"version\": " + nlohmann::json(std::string(kLatestVersion)).dump() + ",\n";
    out += "  \"metadata\": " + metadata_of(file.metadata).dump() + ",\n";
    out += "  \"architecture\": " + nlohmann::json(file.architecture).dump() + ",\n";
    out += "  \"config\": " + file.config.dump() + ",\n";
    out += "  \"weights\": [";
    for (std::size_t i = 0; i < file.weights.size(); ++i) {
        if (i > 0) out += ", ";
        append_float(out, file.weights[i]);
    }
    out += "]";
    if (file.sample_rate) out += fmt::format(",\n  \"sample_rate\": {}", *file.sample_rate);
    out += "\n}\n";
    return out;
}

void write_nam_file(const std::filesystem::path& path, const NamFile& file) {
    checkpoint::write_file_atomically(path, format_nam(file));
}

}  // namespace forge::nam
