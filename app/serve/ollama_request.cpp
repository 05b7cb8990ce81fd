#include "app/serve/ollama_request.h"

#include "app/serve/request_fields.h"
#include "models/llm/grammar/grammar_limits.h"
#include "models/llm/grammar/json_schema.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>

namespace forge::app::serve {

namespace {

using json = nlohmann::ordered_json;

const std::string& string_field(const json& value, const std::string& param) {
    if (!value.is_string()) throw wrong_type(param, "a string");
    return value.get_ref<const std::string&>();
}

bool nonempty_array(const json* value) { return value != nullptr && !(value->is_array() && value->empty()); }

// Ollama's options that forge's sampler has, and the OpenAI field parse_request reads for each.
constexpr std::pair<std::string_view, std::string_view> kSamplingOptions[] = {
    {"temperature", "temperature"},     {"top_p", "top_p"},
    {"top_k", "top_k"},                 {"min_p", "min_p"},
    {"seed", "seed"},                   {"repeat_penalty", "repeat_penalty"},
    {"presence_penalty", "presence_penalty"}, {"frequency_penalty", "frequency_penalty"},
    {"num_predict", "n_predict"},
};

// Go reads JSON numbers as float64 and Ollama truncates them into integer options: 40.0 is 40.
// (Only where the double holds the integer exactly: a cast of 1e30 would be undefined.)
json integral(const json& value) {
    constexpr double kExact = 9007199254740992.0;  // 2^53
    if (!value.is_number_float()) return value;
    const double x = value.get<double>();
    return std::abs(x) < kExact && x == std::floor(x) ? json(static_cast<std::int64_t>(x)) : value;
}

std::vector<std::string> stop_strings(const json& stop) {
    if (stop.is_string()) return {stop.get<std::string>()};
    if (!stop.is_array()) throw wrong_type("options.stop", "an array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < stop.size(); ++i) out.push_back(string_field(stop[i], fmt::format("options.stop[{}]", i)));
    std::erase_if(out, [](const std::string& s) { return s.empty(); });
    return out;
}

// `options` -> the OpenAI fields (sampling, n_predict), the stop strings and num_ctx.
void translate_options(const json& body, json& openai, std::vector<std::string>& stop, OllamaRequest& r) {
    const json* options = field(body, "options");
    if (options == nullptr) return;
    if (!options->is_object()) throw wrong_type("options", "an object");
    for (const auto& [key, raw] : options->items()) {
        if (raw.is_null()) continue;
        const json value = integral(raw);
        if (key == "stop") {
            stop = stop_strings(value);
        } else if (key == "num_ctx") {
            if (!value.is_number_integer() || value.get<std::int64_t>() < 1) throw wrong_type("options.num_ctx", "a positive integer");
            r.num_ctx = value.get<std::int64_t>();
        } else if (key == "num_predict" && value.is_number_integer() && value.get<std::int64_t>() <= 0) {
            // Ollama: -1 without limit, -2 until the context is full (forge: both end at the
            // full context); 0 is its unset value.
            if (value.get<std::int64_t>() < 0) openai["n_predict"] = -1;
        } else if (const auto* known = std::ranges::find(kSamplingOptions, key, &std::pair<std::string_view, std::string_view>::first);
                   known != std::end(kSamplingOptions)) {
            openai[std::string(known->second)] = value;
        } else {
            spdlog::warn("ollama: option '{}' ignored (forge has no such setting)", key);
        }
    }
}

// An Ollama message -> the OpenAI message parse_request reads: tool_calls get their "type",
// tool results their tool_call_id (Ollama names the tool instead), thinking is reasoning_content.
json openai_message(const json& m, const std::string& at) {
    if (!m.is_object()) throw wrong_type(at, "an object");
    if (nonempty_array(field(m, "images"))) throw unsupported(at + ".images", "images (the models forge serves read text only)");
    json out = json::object();
    if (const json* role = field(m, "role")) {
        std::string name = string_field(*role, at + ".role");
        std::ranges::transform(name, name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        out["role"] = name;
    }
    const json* content = field(m, "content");
    out["content"] = content != nullptr ? string_field(*content, at + ".content") : std::string();
    if (const json* thinking = field(m, "thinking")) out["reasoning_content"] = string_field(*thinking, at + ".thinking");
    if (const json* calls = field(m, "tool_calls")) {
        json openai_calls = *calls;
        if (openai_calls.is_array()) {
            for (json& call : openai_calls) {
                if (call.is_object()) call["type"] = "function";
            }
        }
        out["tool_calls"] = openai_calls;
    }
    if (const json* tool_name = field(m, "tool_name")) out["name"] = string_field(*tool_name, at + ".tool_name");
    if (const json* id = field(m, "tool_call_id")) out["tool_call_id"] = string_field(*id, at + ".tool_call_id");
    return out;
}

// The calls of the last assistant message that no tool message has answered yet: (name, id).
using OpenCalls = std::vector<std::pair<std::string, std::string>>;

OpenCalls calls_of(const json& message) {
    OpenCalls calls;
    for (const json& call : message.value("tool_calls", json::array())) {
        const json function = call.is_object() ? call.value("function", json::object()) : json::object();
        const json name = function.is_object() ? function.value("name", json()) : json(), id = call.is_object() ? call.value("id", json()) : json();
        calls.emplace_back(name.is_string() ? name.get<std::string>() : "", id.is_string() ? id.get<std::string>() : "");
    }
    return calls;
}

// Ollama's tool results name the tool, OpenAI's answer a call by id: the id of the first
// unanswered call of that tool (as the client got it from forge), else the tool's name.
std::string answered_call(const json& tool_message, OpenCalls& open) {
    const std::string name = tool_message.value("name", "");
    const auto call = std::ranges::find_if(open, [&](const auto& c) { return c.first == name || name.empty(); });
    if (call == open.end() || call->second.empty()) return name;
    std::string id = call->second;
    open.erase(call);
    return id;
}

json openai_messages(const json& messages) {
    if (!messages.is_array()) throw wrong_type("messages", "an array of messages");
    json out = json::array();
    OpenCalls open;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        json message = openai_message(messages[i], fmt::format("messages[{}]", i));
        const std::string role = message.value("role", "");
        if (role == "assistant") open = calls_of(message);
        if (role == "tool" && !message.contains("tool_call_id")) message["tool_call_id"] = answered_call(message, open);
        out.push_back(std::move(message));
    }
    return out;
}

void refuse_generate_fields(const json& body) {
    if (const json* t = field(body, "template"); t != nullptr && !string_field(*t, "template").empty())
        throw unsupported("template", "a prompt template in the request (forge renders prompts with the model's own chat "
                                      "template; send 'raw': true with a prompt you formatted yourself)");
    if (const json* suffix = field(body, "suffix"); suffix != nullptr && !string_field(*suffix, "suffix").empty())
        throw unsupported("suffix", "text after the answer (fill-in-the-middle)");
    if (nonempty_array(field(body, "images"))) throw unsupported("images", "images (the models forge serves read text only)");
}

std::vector<std::int32_t> context_tokens(const json& context, std::int32_t n_vocab) {
    if (!context.is_array()) throw wrong_type("context", "an array of token ids");
    std::vector<std::int32_t> out;
    for (std::size_t i = 0; i < context.size(); ++i) {
        const json& id = context[i];
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= n_vocab)
            throw invalid_request(fmt::format("'context[{}]' must be a token id of this model (0 to {})", i, n_vocab - 1), "context");
        out.push_back(static_cast<std::int32_t>(id.get<std::int64_t>()));
    }
    return out;
}

// `format`: "json" (any JSON object) or a JSON schema; "" is none. Compiled once per text.
std::shared_ptr<const llm::grammar::Grammar> format_grammar(const json& format, GrammarCache* cache) {
    if (format == "") return nullptr;
    const auto compile = [&]() -> GrammarCache::GrammarPtr {
        if (format == "json") return llm::grammar::json_object_grammar();
        if (!format.is_object()) throw wrong_type("format", "\"json\" or a JSON schema (an object)");
        try {
            return llm::grammar::compile_json_schema(format);
        } catch (const llm::grammar::SchemaError& e) {  // path "#/properties/x" -> "format/properties/x"
            const std::string path = "format" + e.path().substr(1);
            const std::string message = e.what(), prefix = fmt::format("JSON schema at {}: ", e.path());
            const std::string reason = message.starts_with(prefix) ? message.substr(prefix.size()) : message;
            throw invalid_request(fmt::format("'{}': {}", path, reason), path, "invalid_schema");
        } catch (const llm::grammar::GrammarLimitError& e) {
            throw invalid_request(e.what(), "format", "invalid_schema");
        }
    };
    return cache != nullptr ? cache->get("ollama format " + format.dump(), compile) : compile();
}

// parse_request's errors name OpenAI's fields; say Ollama's ("'options.num_predict' must ...").
ApiError in_ollama_terms(const ApiError& e) {
    std::vector<std::pair<std::string, std::string>> renames = {{"chat_template_kwargs.enable_thinking", "think"}};
    for (const auto& [ollama, openai] : kSamplingOptions) renames.emplace_back(openai, "options." + std::string(ollama));
    for (const auto& [from, to] : renames) {
        if (e.param() != from) continue;
        std::string message = e.what();
        for (std::size_t at = message.find("'" + from + "'"); at != std::string::npos; at = message.find("'" + from + "'", at + to.size()))
            message.replace(at + 1, from.size(), to);
        return ApiError(e.status(), message, e.type(), to, e.code());
    }
    return e;
}

void translate_common(const json& body, json& openai) {
    const json* stream = field(body, "stream");
    openai["stream"] = stream != nullptr ? *stream : json(true);  // Ollama streams unless told not to
    if (const json* think = field(body, "think")) {
        if (think->is_string())
            throw unsupported("think", fmt::format("thinking levels ({}) with this model's template: send true or false", think->dump()));
        if (!think->is_boolean()) throw wrong_type("think", "a boolean");
        openai["chat_template_kwargs"] = {{"enable_thinking", *think}};
    }
    // llama-server's `grammar` (GBNF), a forge extension as on /v1/chat/completions; Ollama's own
    // constraint is `format`.
    if (const json* grammar = field(body, "grammar")) openai["grammar"] = *grammar;
    if (const json* keep_alive = field(body, "keep_alive"); keep_alive != nullptr && !keep_alive->is_string() && !keep_alive->is_number())
        throw wrong_type("keep_alive", "a duration (\"5m\", or seconds as a number)");
}

}  // namespace

std::string ollama_model_name(const json& body) {
    const json* model = field(body, "model");
    if (model == nullptr || (model->is_string() && model->get_ref<const std::string&>().empty()))
        throw invalid_request("model is required", "model");
    return string_field(*model, "model");
}

OllamaRequest parse_ollama_request(OllamaEndpoint endpoint, const json& body, const RequestLimits& limits) {
    OllamaRequest r;
    r.endpoint = endpoint;
    json openai = json::object();
    Endpoint internal = Endpoint::ChatCompletions;
    if (endpoint == OllamaEndpoint::Chat) {
        const json* messages = field(body, "messages");
        openai["messages"] = messages != nullptr ? openai_messages(*messages) : json::array();
        r.load_only = openai["messages"].empty();
        if (const json* tools = field(body, "tools")) openai["tools"] = *tools;
        // A forge extension, as on /v1/chat/completions: "required" or a named function makes
        // the model call (Ollama itself lets the model decide, "auto").
        if (const json* choice = field(body, "tool_choice")) openai["tool_choice"] = *choice;
    } else {
        refuse_generate_fields(body);
        const json* prompt = field(body, "prompt");
        const std::string text = prompt != nullptr ? string_field(*prompt, "prompt") : std::string();
        const json* raw = field(body, "raw");
        if (raw != nullptr && !raw->is_boolean()) throw wrong_type("raw", "a boolean");
        if (const json* context = field(body, "context")) r.context = context_tokens(*context, limits.n_vocab);
        r.load_only = text.empty();
        if (raw != nullptr && raw->get<bool>()) {
            internal = Endpoint::Completions;
            openai["prompt"] = text;
        } else {
            openai["messages"] = json::array();
            if (const json* system = field(body, "system"); system != nullptr && !string_field(*system, "system").empty())
                openai["messages"].push_back({{"role", "system"}, {"content", *system}});
            openai["messages"].push_back({{"role", "user"}, {"content", text}});
        }
    }
    translate_common(body, openai);
    if (internal == Endpoint::Completions) openai.erase("chat_template_kwargs");  // raw: no template to tell
    std::vector<std::string> stop;
    translate_options(body, openai, stop, r);
    if (r.load_only) return r;
    try {
        r.completion = parse_request(internal, openai, limits);
    } catch (const ApiError& e) {
        throw in_ollama_terms(e);
    }
    if (!stop.empty()) r.completion.generation.stop = std::move(stop);
    if (const json* format = field(body, "format")) {
        // One grammar per answer, as on /v1/chat/completions: a format and a call cannot both be enforced.
        if (r.completion.parse_tool_calls && *format != "")
            throw unsupported("format", "a format together with tools (leave out one of them)");
        if (r.completion.grammar && *format != "")
            throw invalid_request("'format' and 'grammar' both constrain the answer: send one of them", "format");
        r.completion.grammar = format_grammar(*format, limits.grammars);
    }
    return r;
}

}  // namespace forge::app::serve
