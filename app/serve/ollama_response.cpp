#include "app/serve/ollama_response.h"

#include "core/gguf/metadata.h"

#include "models/llm/quant_mixture.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <variant>

namespace forge::app::serve {

namespace {

using json = nlohmann::ordered_json;

std::string rfc3339(std::chrono::system_clock::time_point t) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
    const auto seconds = std::chrono::system_clock::time_point(std::chrono::seconds(ns / 1'000'000'000));
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:09d}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(seconds)), ns % 1'000'000'000);
}

std::int64_t nanoseconds(double seconds) { return std::llround(seconds * 1e9); }

json header(const OllamaMeta& meta) { return {{"model", meta.model}, {"created_at", ollama_timestamp()}}; }

json tool_calls_json(std::span<const llm::ChatToolCall> calls, std::size_t first) {
    json out = json::array();
    for (std::size_t i = 0; i < calls.size(); ++i) {
        // Ollama's arguments are an object; text the model left unparseable stays text.
        json arguments = json::parse(calls[i].arguments, nullptr, false);
        json function = {{"index", first + i}, {"name", calls[i].name}};
        function["arguments"] = arguments.is_discarded() ? json(calls[i].arguments) : arguments;
        out.push_back({{"id", calls[i].id}, {"function", function}});
    }
    return out;
}

// The answer's part of an object: chat's message, generate's response.
void put_text(json& object, const OllamaMeta& meta, const OllamaText& text) {
    if (meta.endpoint == OllamaEndpoint::Generate) {
        object["response"] = text.content;
        if (!text.thinking.empty()) object["thinking"] = text.thinking;
        return;
    }
    json message = {{"role", "assistant"}, {"content", text.content}};
    if (!text.thinking.empty()) message["thinking"] = text.thinking;
    if (!text.calls.empty()) message["tool_calls"] = tool_calls_json(text.calls, text.first_call);
    object["message"] = message;
}

// Ollama's HumanNumber: "8B", "7.6B", "596.05M", "12K".
std::string human_count(std::uint64_t n) {
    const auto scaled = [](double x, const char* unit, const char* decimals) {
        return x == std::floor(x) ? fmt::format("{:.0f}{}", x, unit) : fmt::format(fmt::runtime(decimals), x, unit);
    };
    if (n >= 1'000'000'000) return scaled(n / 1e9, "B", "{:.1f}{}");
    if (n >= 1'000'000) return scaled(n / 1e6, "M", "{:.2f}{}");
    if (n >= 1'000) return fmt::format("{:.0f}K", n / 1e3);
    return std::to_string(n);
}

std::uint64_t parameter_count(const gguf::GgufFile& file) {
    std::uint64_t n = 0;
    for (const gguf::TensorInfo& t : file.tensors()) n += static_cast<std::uint64_t>(t.numel());
    return n;
}

// general.file_type as llama-quantize names it ("Q8_0"), else the type most weights have.
std::string quantization_level(const gguf::GgufFile& file) {
    if (const gguf::Value* type = file.find("general.file_type")) {
        for (const std::string_view name : llm::file_type_names()) {
            if (llm::file_type_from_name(name)->id == type->as_int()) return std::string(name);
        }
    }
    return "unknown";
}

json value_json(const gguf::Value& value, bool arrays) {
    return std::visit(
        [&](const auto& v) -> json {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, gguf::Array>) {
                json items = json::array();
                if (arrays) {
                    for (const gguf::Value& item : v.items) items.push_back(value_json(item, arrays));
                }
                return items;
            } else {
                return json(v);
            }
        },
        value.storage());
}

std::string architecture(const gguf::GgufFile& file) {
    return gguf::Metadata(file).string("general.architecture");
}

json details(const gguf::GgufFile& file) {
    const std::string arch = architecture(file);
    return {{"parent_model", ""}, {"format", "gguf"}, {"family", arch}, {"families", json::array({arch})},
            {"parameter_size", human_count(parameter_count(file))},
            {"quantization_level", quantization_level(file)}};
}

// Not the sha256 Ollama's blobs are named by (hashing gigabytes on every /api/tags would be
// slow): FNV-1a of the file's path, size and time, stable while the file is unchanged.
std::string file_digest(const std::string& path, std::uintmax_t size, std::int64_t mtime) {
    std::uint64_t h = 1469598103934665603ull;
    for (const char c : fmt::format("{}\n{}\n{}", path, size, mtime)) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return fmt::format("{:016x}", h);
}

}  // namespace

std::string ollama_timestamp() { return rfc3339(std::chrono::system_clock::now()); }

json ollama_chunk(const OllamaMeta& meta, const OllamaText& text) {
    json chunk = header(meta);
    put_text(chunk, meta, text);
    chunk["done"] = false;
    return chunk;
}

json ollama_done(const OllamaMeta& meta, const OllamaText& text, const llm::GenerationStats& stats, const OllamaTimes& times,
                 const std::vector<std::int32_t>* context) {
    json done = header(meta);
    put_text(done, meta, text);
    done["done"] = true;
    done["done_reason"] = llm::finish_reason_name(stats.finish);  // "stop" or "length"
    if (context != nullptr) done["context"] = *context;
    done["total_duration"] = nanoseconds(times.total_s);
    done["load_duration"] = nanoseconds(times.load_s);
    done["prompt_eval_count"] = stats.prompt_tokens;
    done["prompt_eval_duration"] = nanoseconds(stats.prompt_s);
    done["eval_count"] = stats.generated_tokens;
    done["eval_duration"] = nanoseconds(stats.generate_s);
    return done;
}

json ollama_loaded(const OllamaMeta& meta) {
    json loaded = header(meta);
    put_text(loaded, meta, {});
    loaded["done"] = true;
    loaded["done_reason"] = "load";
    return loaded;
}

json ollama_error(const std::string& message) { return {{"error", message}}; }

json ollama_model_entry(const OllamaModelFacts& facts, const gguf::GgufFile& file) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(facts.path, ec);
    const auto written = fs::last_write_time(facts.path, ec);
    const auto modified = std::chrono::file_clock::to_sys(written);
    return {{"name", facts.name},
            {"model", facts.name},
            {"modified_at", rfc3339(modified)},
            {"size", ec ? 0 : size},
            {"digest", file_digest(facts.path, size, modified.time_since_epoch().count())},
            {"details", details(file)}};
}

json ollama_show(const OllamaModelFacts& facts, const gguf::GgufFile& file, std::string_view chat_template,
                 std::span<const std::string> capabilities, bool verbose) {
    const std::string arch = architecture(file);
    json info = json::object();
    for (const gguf::KeyValue& kv : file.metadata()) {
        const bool wanted = kv.key.starts_with("general.") || kv.key.starts_with(arch + ".") || kv.key.starts_with("tokenizer.");
        if (wanted && kv.key != "tokenizer.chat_template") info[kv.key] = value_json(kv.value, verbose);
    }
    if (!info.contains("general.parameter_count")) info["general.parameter_count"] = parameter_count(file);
    const std::string parameters = fmt::format("num_ctx {}", facts.ctx_size);
    return {{"license", ""},
            {"modelfile", fmt::format("# Modelfile of the model forge serves\nFROM {}\nPARAMETER {}\n", facts.path, parameters)},
            {"parameters", parameters},
            {"template", chat_template},
            {"details", details(file)},
            {"model_info", info},
            {"capabilities", capabilities},
            {"modified_at", ollama_model_entry(facts, file)["modified_at"]}};
}

}  // namespace forge::app::serve
