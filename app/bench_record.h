// A benchmark record: what `forge bench run` writes and `forge bench compare` reads. The format
// (schema 1) is defined in docs/BENCHMARKS.md; this file reads, checks and writes it.
#pragma once

#include "app/bench_stats.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace forge::app::bench {

constexpr int kSchema = 1;

enum class Direction { Higher, Lower };  // which way is better

std::string_view direction_name(Direction direction);

struct Row {
    std::string name;  // "<bench>/<what>", matched by name across records
    std::string unit;
    Direction direction = Direction::Higher;
    std::vector<double> reps;
    Summary summary;
    bool noisy = true;
    nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // optional: limit, reference, params
};

// A row with its summary and noisy flag computed from `reps`.
Row make_row(std::string name, std::string unit, Direction direction, std::vector<double> reps,
             nlohmann::ordered_json extra = nlohmann::ordered_json::object());

struct Record {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();  // "created", "suite", ...
    nlohmann::ordered_json machine = nlohmann::ordered_json::object();
    nlohmann::ordered_json build = nlohmann::ordered_json::object();
    std::vector<Row> rows;

    const Row* find(std::string_view name) const;
};

nlohmann::ordered_json to_json(const Record& record);

// Checks every required field of docs/BENCHMARKS.md (types, unique names, summaries that match
// the repetitions); throws forge::FormatError naming `source` and the field.
Record record_from_json(const nlohmann::ordered_json& json, std::string_view source);

Record read_record(const std::string& path);
void write_record(const std::string& path, const Record& record);  // atomic: temporary file + rename

}  // namespace forge::app::bench
