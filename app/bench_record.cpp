#include "app/bench_record.h"

#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "core/json.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

namespace forge::app::bench {
namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void reject(std::string_view source, std::string_view field, std::string_view problem) {
    fail_format("{}: {}: {}", source, field, problem);
}

const Json& member(const Json& object, std::string_view key, std::string_view source, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end()) reject(source, where + std::string(key), "missing");
    return *it;
}

// The value of `object[key]`, which must be of the given JSON kind.
const Json& typed(const Json& object, std::string_view key, Json::value_t kind, std::string_view source,
                  const std::string& where) {
    const Json& value = member(object, key, source, where);
    const bool ok = kind == Json::value_t::number_float ? value.is_number()
                    : kind == Json::value_t::number_integer ? value.is_number_integer()
                                                             : value.type() == kind;
    if (!ok) reject(source, where + std::string(key), fmt::format("expected {}, found {}", Json(kind).type_name(), value.type_name()));
    return value;
}

void check_machine(const Json& machine, std::string_view source) {
    for (const char* key : {"cpu", "instruction_set", "kernel"}) typed(machine, key, Json::value_t::string, source, "machine.");
    for (const char* key : {"cores", "threads"}) typed(machine, key, Json::value_t::number_integer, source, "machine.");
    for (const char* key : {"memory_bytes", "llc_bytes"}) typed(machine, key, Json::value_t::number_float, source, "machine.");
    for (const char* key : {"load_before", "load_after"}) {
        const Json& load = typed(machine, key, Json::value_t::array, source, "machine.");
        if (load.size() != 3 || !std::all_of(load.begin(), load.end(), [](const Json& v) { return v.is_number(); }))
            reject(source, fmt::format("machine.{}", key), "expected the 1, 5 and 15 minute load averages");
    }
}

void check_build(const Json& build, std::string_view source) {
    for (const char* key : {"version", "commit", "backend", "compiler", "buildtype", "flags"})
        typed(build, key, Json::value_t::string, source, "build.");
    for (const char* key : {"dirty", "native"}) typed(build, key, Json::value_t::boolean, source, "build.");
}

bool close(double stored, double computed) {
    return std::abs(stored - computed) <= 1e-9 * std::max(std::abs(stored), std::abs(computed)) + 1e-12;
}

Row row_from_json(const Json& j, std::string_view source, std::size_t index) {
    const std::string where = fmt::format("rows[{}].", index);
    if (!j.is_object()) reject(source, where, "expected an object");
    const std::string name = typed(j, "name", Json::value_t::string, source, where).get<std::string>();
    if (name.empty()) reject(source, where + "name", "empty");
    const std::string at = fmt::format("rows[{}] ({}).", index, name);
    const std::string unit = typed(j, "unit", Json::value_t::string, source, at).get<std::string>();
    const std::string direction = typed(j, "direction", Json::value_t::string, source, at).get<std::string>();
    if (direction != "higher" && direction != "lower") reject(source, at + "direction", "expected \"higher\" or \"lower\"");
    const Json& reps_json = typed(j, "reps", Json::value_t::array, source, at);
    std::vector<double> reps;
    for (const Json& v : reps_json) {
        if (!v.is_number() || !std::isfinite(v.get<double>())) reject(source, at + "reps", "expected finite numbers");
        reps.push_back(v.get<double>());
    }
    if (reps.empty()) reject(source, at + "reps", "needs at least one repetition");
    Row row = make_row(name, unit, direction == "higher" ? Direction::Higher : Direction::Lower, std::move(reps));
    const std::pair<const char*, double> stored[] = {{"median", row.summary.median}, {"min", row.summary.min},
                                                     {"max", row.summary.max}, {"cv", row.summary.cv}};
    for (const auto& [key, computed] : stored) {
        const double value = typed(j, key, Json::value_t::number_float, source, at).get<double>();
        if (!close(value, computed)) reject(source, at + key, fmt::format("{} does not match the repetitions ({})", value, computed));
    }
    if (typed(j, "noisy", Json::value_t::boolean, source, at).get<bool>() != row.noisy)
        reject(source, at + "noisy", "does not match the rule in docs/BENCHMARKS.md (cv > 0.05 or fewer than 3 reps)");
    static const std::set<std::string> kRequired = {"name", "unit", "direction", "reps", "median", "min", "max", "cv", "noisy"};
    for (const auto& [key, value] : j.items()) {
        if (!kRequired.contains(key)) row.extra[key] = value;  // optional fields travel unchanged
    }
    return row;
}

}  // namespace

std::string_view direction_name(Direction direction) { return direction == Direction::Higher ? "higher" : "lower"; }

Row make_row(std::string name, std::string unit, Direction direction, std::vector<double> reps, nlohmann::ordered_json extra) {
    Row row{std::move(name), std::move(unit), direction, std::move(reps), {}, true, std::move(extra)};
    row.summary = summarize(row.reps);
    row.noisy = is_noisy(row.summary, row.reps.size());
    return row;
}

const Row* Record::find(std::string_view name) const {
    for (const Row& row : rows)
        if (row.name == name) return &row;
    return nullptr;
}

nlohmann::ordered_json to_json(const Record& record) {
    nlohmann::ordered_json out;
    out["schema"] = kSchema;
    for (const auto& [key, value] : record.header.items()) out[key] = value;
    out["machine"] = record.machine;
    out["build"] = record.build;
    out["rows"] = nlohmann::ordered_json::array();
    for (const Row& row : record.rows) {
        nlohmann::ordered_json j = {{"name", row.name}, {"unit", row.unit}, {"direction", direction_name(row.direction)},
                                    {"reps", row.reps}, {"median", row.summary.median}, {"min", row.summary.min},
                                    {"max", row.summary.max}, {"cv", row.summary.cv}, {"noisy", row.noisy}};
        for (const auto& [key, value] : row.extra.items()) j[key] = value;
        out["rows"].push_back(std::move(j));
    }
    return out;
}

Record record_from_json(const nlohmann::ordered_json& json, std::string_view source) {
    if (!json.is_object()) reject(source, "(top level)", "expected a JSON object");
    const Json& schema = typed(json, "schema", Json::value_t::number_integer, source, "");
    if (schema.get<int>() != kSchema) reject(source, "schema", fmt::format("version {} is not {} (docs/BENCHMARKS.md)", schema.get<int>(), kSchema));
    Record record;
    check_machine(typed(json, "machine", Json::value_t::object, source, ""), source);
    check_build(typed(json, "build", Json::value_t::object, source, ""), source);
    record.machine = json.at("machine");
    record.build = json.at("build");
    for (const auto& [key, value] : json.items()) {
        if (key != "schema" && key != "machine" && key != "build" && key != "rows") record.header[key] = value;
    }
    std::set<std::string> names;
    const Json& rows = typed(json, "rows", Json::value_t::array, source, "");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        Row row = row_from_json(rows[i], source, i);
        if (!names.insert(row.name).second) reject(source, fmt::format("rows[{}].name", i), fmt::format("\"{}\" appears twice", row.name));
        record.rows.push_back(std::move(row));
    }
    return record;
}

Record read_record(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(fmt::format("{}: cannot open the benchmark record", path));
    Json json;
    try {
        json = Json::parse(in);
    } catch (const Json::parse_error& e) {
        fail_format("{}: not JSON: {}", path, json_error_text(e));
    }
    return record_from_json(json, path);
}

void write_record(const std::string& path, const Record& record) {
    checkpoint::write_file_atomically(path, to_json(record).dump(1) + "\n");
}

}  // namespace forge::app::bench
