#include "app/bench_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace forge::app::bench {
namespace {

constexpr double kJitter = 0.005;  // timer and clock-frequency jitter, below any row's cv

// Every repetition of `better` beats every repetition of `worse`, in the row's direction.
bool apart(const Row& better, const Row& worse) {
    return better.direction == Direction::Higher ? better.summary.min > worse.summary.max
                                                 : better.summary.max < worse.summary.min;
}

std::string text_of(const nlohmann::ordered_json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
}

// "machine.cpu differs: X vs Y" for each listed key whose values differ.
void warn_on_differences(const nlohmann::ordered_json& base, const nlohmann::ordered_json& next, std::string_view what,
                         std::initializer_list<const char*> keys, std::vector<std::string>& warnings) {
    for (const char* key : keys) {
        const auto b = base.find(key), n = next.find(key);
        if (b == base.end() || n == next.end() || *b == *n) continue;
        warnings.push_back(fmt::format("{}.{} differs: {} (base) vs {} (new)", what, key, text_of(*b), text_of(*n)));
    }
}

void warn_on_load(const Record& record, std::string_view label, std::vector<std::string>& warnings) {
    const double cores = record.machine.value("cores", 1.0);
    for (const char* key : {"load_before", "load_after"}) {
        const auto load = record.machine.find(key);
        if (load == record.machine.end() || load->empty()) continue;
        const double one_minute = (*load)[0].get<double>();
        if (one_minute > 0.5 * cores)
            warnings.push_back(fmt::format("{}: machine.{} is {:.2f} on {} cores: other work may have slowed the run", label,
                                           key, one_minute, cores));
    }
}

}  // namespace

bool is_machine_row(std::string_view name) { return name.starts_with(kMachinePrefix); }

std::string_view verdict_name(Verdict verdict) {
    switch (verdict) {
        case Verdict::Faster: return "faster";
        case Verdict::Slower: return "slower";
        case Verdict::Same: return "same";
        case Verdict::Noise: return "noise";
        case Verdict::Missing: return "missing";
        case Verdict::New: return "new";
    }
    return "?";
}

bool Comparison::regressed() const {
    return std::any_of(rows.begin(), rows.end(), [](const RowComparison& r) { return r.regression; });
}

double noise_band(const Row& base, const Row& next) {
    return 2.0 * std::hypot(base.summary.cv, next.summary.cv) + kJitter;
}

RowComparison compare_rows(const Row& base, const Row& next, double threshold) {
    RowComparison r{base.name, next.unit, Verdict::Same, &base, &next};
    r.speedup = base.direction == Direction::Higher ? next.summary.median / base.summary.median
                                                     : base.summary.median / next.summary.median;
    r.band = noise_band(base, next);
    const bool significant = std::abs(std::log(r.speedup)) > r.band;
    if (significant && r.speedup > 1 && apart(next, base)) r.verdict = Verdict::Faster;
    else if (significant && r.speedup < 1 && apart(base, next)) r.verdict = Verdict::Slower;
    else r.verdict = std::abs(r.speedup - 1) <= threshold ? Verdict::Same : Verdict::Noise;
    // A machine row (FMA peak, bandwidth) that moved says the machine changed, not forge:
    // compare() warns about it instead of failing.
    r.regression = r.verdict == Verdict::Slower && 1 - r.speedup > threshold && !is_machine_row(base.name);
    return r;
}

Comparison compare(const Record& base, const Record& next, double threshold) {
    Comparison out;
    out.threshold = threshold;
    for (const Row& b : base.rows) {
        const Row* n = next.find(b.name);
        if (n == nullptr) {
            out.rows.push_back({b.name, b.unit, Verdict::Missing, &b, nullptr});
            continue;
        }
        if (n->unit != b.unit || n->direction != b.direction) {
            out.warnings.push_back(fmt::format("{}: unit or direction differs ({} {} vs {} {}); not compared", b.name, b.unit,
                                               direction_name(b.direction), n->unit, direction_name(n->direction)));
            continue;
        }
        out.rows.push_back(compare_rows(b, *n, threshold));
        const RowComparison& r = out.rows.back();
        if (is_machine_row(b.name) && (r.verdict == Verdict::Faster || r.verdict == Verdict::Slower))
            out.warnings.push_back(fmt::format("the machine itself measured {} ({} {:+.1f}%): the other rows may have moved with it",
                                               verdict_name(r.verdict), b.name, 100 * (r.speedup - 1)));
    }
    for (const Row& n : next.rows) {
        if (base.find(n.name) == nullptr) out.rows.push_back({n.name, n.unit, Verdict::New, nullptr, &n});
    }
    warn_on_differences(base.machine, next.machine, "machine", {"cpu", "instruction_set", "cores", "threads", "memory_bytes"},
                        out.warnings);
    warn_on_differences(base.build, next.build, "build", {"backend", "native", "compiler", "buildtype", "flags"}, out.warnings);
    for (const auto& [record, label] : {std::pair{&base, "base"}, std::pair{&next, "new"}}) {
        if (record->build.value("dirty", false))
            out.warnings.push_back(fmt::format("{}: built from a dirty tree (uncommitted changes on {})", label,
                                               record->build.value("commit", "unknown")));
        warn_on_load(*record, label, out.warnings);
        for (std::string& w : limit_warnings(*record, label)) out.warnings.push_back(std::move(w));
    }
    return out;
}

std::vector<std::string> limit_warnings(const Record& record, std::string_view label) {
    std::vector<std::string> warnings;
    for (const Row& row : record.rows) {
        const auto limit = row.extra.find("limit");
        if (limit == row.extra.end() || !limit->is_object() || !limit->contains("row")) continue;
        const Row* ceiling = record.find(limit->at("row").get<std::string>());
        if (ceiling == nullptr || ceiling->unit != row.unit) continue;
        const double fraction = row.summary.median / ceiling->summary.median;
        if (fraction > 1 + noise_band(*ceiling, row))
            warnings.push_back(fmt::format("{}: {} runs at {:.0f}% of {} ({:.2f} vs {:.2f} {}): it measures a cache, or the "
                                           "probe under-measures",
                                           label, row.name, 100 * fraction, ceiling->name, row.summary.median,
                                           ceiling->summary.median, row.unit));
    }
    return warnings;
}

}  // namespace forge::app::bench
