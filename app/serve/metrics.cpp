#include "app/serve/metrics.h"

#include <fmt/format.h>

namespace forge::app::serve {

namespace {

std::int64_t microseconds(double seconds) { return static_cast<std::int64_t>(seconds * 1e6); }

void metric(std::string& out, const char* name, const char* type, const char* help, double value) {
    out += fmt::format("# HELP {0} {1}\n# TYPE {0} {2}\n{0} {3}\n", name, help, type, value);
}

// A label value as the text format writes it: backslash, double quote and newline escaped.
std::string label_value(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '\\' || c == '"') out += '\\';
        out += c == '\n' ? std::string("\\n") : std::string(1, c);
    }
    return out;
}

// One gauge with a sample per loaded model.
void per_model(std::string& out, const char* name, const char* help, const std::vector<ModelLoad>& models,
               std::int64_t SchedulerLoad::*field) {
    out += fmt::format("# HELP {0} {1}\n# TYPE {0} gauge\n", name, help);
    for (const ModelLoad& m : models) out += fmt::format("{}{{model=\"{}\"}} {}\n", name, label_value(m.model), m.load.*field);
}

}  // namespace

void Metrics::record_finished(const llm::GenerationStats& stats) {
    prompt_tokens_ += stats.prompt_tokens - stats.cached_tokens;
    prompt_us_ += microseconds(stats.prompt_s);
    generated_tokens_ += stats.generated_tokens;
    generate_us_ += microseconds(stats.generate_s);
    drafted_tokens_ += stats.drafted_tokens;
    accepted_tokens_ += stats.accepted_tokens;
    ++(stats.finish == llm::FinishReason::Cancelled ? cancelled_ : finished_);
}

std::string Metrics::prometheus(const Load& load) const {
    std::string out;
    metric(out, "forge_prompt_tokens_total", "counter", "Prompt tokens evaluated (cached prefixes excluded).",
           static_cast<double>(prompt_tokens_.load()));
    metric(out, "forge_prompt_seconds_total", "counter", "Seconds from admission to the first token, summed over requests.",
           static_cast<double>(prompt_us_.load()) * 1e-6);
    metric(out, "forge_tokens_predicted_total", "counter", "Tokens generated.", static_cast<double>(generated_tokens_.load()));
    metric(out, "forge_tokens_predicted_seconds_total", "counter", "Seconds of generation, summed over requests.",
           static_cast<double>(generate_us_.load()) * 1e-6);
    const auto drafted = static_cast<double>(drafted_tokens_.load()), accepted = static_cast<double>(accepted_tokens_.load());
    metric(out, "forge_draft_tokens_total", "counter", "Draft tokens scored by speculative decoding (--spec).", drafted);
    metric(out, "forge_draft_tokens_accepted_total", "counter", "Of those, tokens the model agreed with and kept.", accepted);
    metric(out, "forge_draft_acceptance_ratio", "gauge", "Draft tokens accepted / scored (0 before any).",
           drafted > 0 ? accepted / drafted : 0.0);
    metric(out, "forge_requests_finished_total", "counter", "Requests that ran to their end.", static_cast<double>(finished_.load()));
    metric(out, "forge_requests_cancelled_total", "counter", "Requests cancelled (client gone, shutdown).",
           static_cast<double>(cancelled_.load()));
    metric(out, "forge_requests_rejected_total", "counter", "Requests answered with an error before they ran.",
           static_cast<double>(rejected_.load()));
    metric(out, "forge_requests_processing", "gauge", "Requests holding a slot.", static_cast<double>(load.running));
    metric(out, "forge_requests_deferred", "gauge", "Requests waiting for a slot.", static_cast<double>(load.queued));
    metric(out, "forge_slots_busy", "gauge", "Slots in use.", static_cast<double>(load.running));
    metric(out, "forge_slots_total", "gauge", "Slots (--parallel).", static_cast<double>(load.slots));
    metric(out, "forge_models_loaded", "gauge", "Models loaded now.", static_cast<double>(load.models.size()));
    per_model(out, "forge_model_requests_processing", "Requests holding a slot of this model.", load.models, &SchedulerLoad::running);
    per_model(out, "forge_model_requests_deferred", "Requests waiting for a slot of this model.", load.models, &SchedulerLoad::queued);
    per_model(out, "forge_model_slots_total", "This model's slots (--parallel; 0 for an embedding model).", load.models,
              &SchedulerLoad::slots);
    return out;
}

}  // namespace forge::app::serve
