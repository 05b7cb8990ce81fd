#include "app/serve/openai_request.h"

#include "app/serve/lora_adapters.h"
#include "app/serve/request_fields.h"
#include "core/json.h"
#include "models/llm/grammar/gbnf.h"
#include "models/llm/grammar/grammar_limits.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/response_format.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>
#include <string_view>
#include <vector>

namespace forge::app::serve {

namespace {

using json = nlohmann::ordered_json;

double number_in(const json& value, const std::string& param, double lo, double hi) {
    if (!value.is_number()) throw wrong_type(param, "a number");
    const double x = value.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi) throw invalid_request(fmt::format("'{}' must be in [{}, {}], got {}", param, lo, hi, x), param);
    return x;
}

std::int64_t integer_in(const json& value, const std::string& param, std::int64_t lo, std::int64_t hi) {
    if (!value.is_number_integer()) throw wrong_type(param, "an integer");
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
        throw invalid_request(fmt::format("'{}' must be at most {}", param, hi), param);
    const auto x = value.get<std::int64_t>();
    if (x < lo || x > hi) throw invalid_request(fmt::format("'{}' must be in [{}, {}], got {}", param, lo, hi, x), param);
    return x;
}

bool boolean(const json& value, const std::string& param) {
    if (!value.is_boolean()) throw wrong_type(param, "a boolean");
    return value.get<bool>();
}

const std::string& string(const json& value, const std::string& param) {
    if (!value.is_string()) throw wrong_type(param, "a string");
    return value.get_ref<const std::string&>();
}

// "content": a string, or an array of text parts (concatenated). Other part types (images,
// audio, files) are refused: the models forge runs read text only.
std::string message_content(const json& content, const std::string& param) {
    if (content.is_string()) return content.get<std::string>();
    if (!content.is_array()) throw wrong_type(param, "a string or an array of content parts");
    std::string text;
    for (std::size_t j = 0; j < content.size(); ++j) {
        const std::string part = fmt::format("{}[{}]", param, j);
        if (!content[j].is_object()) throw wrong_type(part, "an object");
        const json* type = field(content[j], "type");
        if (type == nullptr) throw invalid_request(fmt::format("'{}.type' is required", part), part + ".type");
        if (string(*type, part + ".type") != "text")
            throw unsupported(part + ".type", fmt::format("content parts of type '{}' (only 'text')", type->get<std::string>()));
        const json* part_text = field(content[j], "text");
        if (part_text == nullptr) throw invalid_request(fmt::format("'{}.text' is required", part), part + ".text");
        text += string(*part_text, part + ".text");
    }
    return text;
}

// An assistant's earlier calls: [{"id", "type": "function", "function": {"name", "arguments"}}],
// arguments as a JSON string (OpenAI's shape; an object is taken as its JSON text).
std::vector<llm::ChatToolCall> parse_tool_calls(const json& calls, const std::string& param) {
    if (!calls.is_array()) throw wrong_type(param, "an array of tool calls");
    std::vector<llm::ChatToolCall> out;
    for (std::size_t j = 0; j < calls.size(); ++j) {
        const std::string at = fmt::format("{}[{}]", param, j);
        if (!calls[j].is_object()) throw wrong_type(at, "an object");
        if (const json* type = field(calls[j], "type"); type != nullptr && string(*type, at + ".type") != "function")
            throw invalid_request(fmt::format("'{}.type' must be 'function'", at), at + ".type");
        const json* function = field(calls[j], "function");
        if (function == nullptr || !function->is_object()) throw wrong_type(at + ".function", "an object with 'name' and 'arguments'");
        llm::ChatToolCall call;
        if (const json* id = field(calls[j], "id")) call.id = string(*id, at + ".id");
        const json* name = field(*function, "name");
        if (name == nullptr) throw invalid_request(fmt::format("'{}.function.name' is required", at), at + ".function.name");
        call.name = string(*name, at + ".function.name");
        const json* arguments = field(*function, "arguments");
        if (arguments == nullptr) {
            call.arguments = "{}";
        } else if (arguments->is_string()) {
            call.arguments = arguments->get<std::string>();
            // Templates read the arguments as an object: text that is no JSON cannot be rendered.
            if (!json::accept(call.arguments))
                throw invalid_request(fmt::format("'{}.function.arguments' is not valid JSON", at), at + ".function.arguments");
        } else {
            call.arguments = arguments->dump();
        }
        out.push_back(std::move(call));
    }
    return out;
}

std::vector<llm::ChatMessage> parse_messages(const json& body) {
    const json* messages = field(body, "messages");
    if (messages == nullptr) throw invalid_request("'messages' is required", "messages");
    if (!messages->is_array() || messages->empty()) throw wrong_type("messages", "a non-empty array");
    std::vector<llm::ChatMessage> out;
    for (std::size_t i = 0; i < messages->size(); ++i) {
        const json& m = (*messages)[i];
        const std::string at = fmt::format("messages[{}]", i);
        if (!m.is_object()) throw wrong_type(at, "an object");
        const json* role = field(m, "role");
        if (role == nullptr) throw invalid_request(fmt::format("'{}.role' is required", at), at + ".role");
        llm::ChatMessage message;
        message.role = string(*role, at + ".role");
        if (message.role == "developer") message.role = "system";  // OpenAI's newer name for it
        if (message.role != "system" && message.role != "user" && message.role != "assistant" && message.role != "tool")
            throw invalid_request(fmt::format("'{}.role' must be one of system, developer, user, assistant, tool; got '{}'", at,
                                              message.role),
                                  at + ".role");
        if (const json* calls = field(m, "tool_calls")) {
            if (message.role != "assistant") throw invalid_request(fmt::format("'{}.tool_calls' is only for role 'assistant'", at), at + ".tool_calls");
            message.tool_calls = parse_tool_calls(*calls, at + ".tool_calls");
        }
        if (message.role == "tool") {
            const json* id = field(m, "tool_call_id");
            if (id == nullptr) throw invalid_request(fmt::format("'{}.tool_call_id' is required for role 'tool'", at), at + ".tool_call_id");
            message.tool_call_id = string(*id, at + ".tool_call_id");
        }
        if (const json* name = field(m, "name")) message.name = string(*name, at + ".name");
        const json* content = field(m, "content");
        if (content == nullptr && message.role != "assistant")
            throw invalid_request(fmt::format("'{}.content' is required for role '{}'", at, message.role), at + ".content");
        if (content != nullptr) message.content = message_content(*content, at + ".content");
        if (const json* reasoning = field(m, "reasoning_content"))
            message.reasoning_content = string(*reasoning, at + ".reasoning_content");
        out.push_back(std::move(message));
    }
    return out;
}

std::vector<std::int32_t> token_ids(const json& ids, const std::string& param, std::int32_t n_vocab) {
    std::vector<std::int32_t> out;
    for (std::size_t i = 0; i < ids.size(); ++i)
        out.push_back(static_cast<std::int32_t>(integer_in(ids[i], fmt::format("{}[{}]", param, i), 0, n_vocab - 1)));
    return out;
}

// "prompt": a string, an array of token ids, or an array holding one of those (one choice).
void parse_prompt(const json& body, const RequestLimits& limits, CompletionRequest& r) {
    const json* prompt = field(body, "prompt");
    if (prompt == nullptr) throw invalid_request("'prompt' is required", "prompt");
    const json* p = prompt;
    if (p->is_array() && p->size() == 1 && ((*p)[0].is_string() || (*p)[0].is_array())) p = &(*p)[0];
    if (p->is_string()) {
        r.prompt_text = p->get<std::string>();
        return;
    }
    if (!p->is_array()) throw wrong_type("prompt", "a string or an array of token ids");
    if (p->empty()) throw invalid_request("'prompt' must not be empty", "prompt");
    if (!(*p)[0].is_number_integer())
        throw unsupported("prompt", "several prompts in one request (send one string or one array of token ids)");
    r.prompt_tokens = token_ids(*p, "prompt", limits.n_vocab);
    r.prompt_is_tokens = true;
}

std::vector<std::string> parse_stop(const json& stop) {
    if (stop.is_string()) return {stop.get<std::string>()};
    if (!stop.is_array() || stop.size() > 4) throw wrong_type("stop", "a string or an array of at most 4 strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < stop.size(); ++i) out.push_back(string(stop[i], fmt::format("stop[{}]", i)));
    std::erase_if(out, [](const std::string& s) { return s.empty(); });
    return out;
}

std::vector<std::pair<std::int32_t, float>> parse_logit_bias(const json& bias, std::int32_t n_vocab) {
    if (!bias.is_object()) throw wrong_type("logit_bias", "an object mapping token ids to numbers");
    std::vector<std::pair<std::int32_t, float>> out;
    for (const auto& [key, value] : bias.items()) {
        const std::string param = fmt::format("logit_bias.{}", key);
        std::size_t used = 0;
        long long id = -1;
        try {
            id = std::stoll(key, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != key.size() || id < 0 || id >= n_vocab)
            throw invalid_request(fmt::format("'logit_bias' key '{}' is not a token id of this model (0 to {})", key, n_vocab - 1),
                                  "logit_bias");
        out.emplace_back(static_cast<std::int32_t>(id), static_cast<float>(number_in(value, param, -100.0, 100.0)));
    }
    return out;
}

// Fields that ask for something forge does not do: refused by name.
void refuse_unsupported(const json& body, Endpoint endpoint) {
    // Any count above 1 is refused for what it is, not for a range forge has no use for.
    constexpr auto kAnyCount = std::numeric_limits<std::int64_t>::max();
    if (const json* n = field(body, "n"); n != nullptr && integer_in(*n, "n", 1, kAnyCount) != 1)
        throw unsupported("n", fmt::format("it returns one choice per request (n = 1), not {}", n->dump()));
    if (const json* best_of = field(body, "best_of"); best_of != nullptr && integer_in(*best_of, "best_of", 1, kAnyCount) != 1)
        throw unsupported("best_of", fmt::format("it generates one answer per request (best_of = 1), not {}", best_of->dump()));
    if (endpoint == Endpoint::Completions) {
        if (const json* echo = field(body, "echo"); echo != nullptr && boolean(*echo, "echo"))
            throw unsupported("echo", "echo = true");
        if (const json* suffix = field(body, "suffix"); suffix != nullptr && !string(*suffix, "suffix").empty())
            throw unsupported("suffix", "insertion after a suffix");
    }
    // The deprecated single-function API; `tools` / `tool_choice` say the same.
    if (const json* functions = field(body, "functions"); functions != nullptr && !(functions->is_array() && functions->empty()))
        throw unsupported("functions", "the deprecated 'functions' field (send 'tools')");
    if (const json* call = field(body, "function_call"); call != nullptr && *call != "none" && *call != "auto")
        throw unsupported("function_call", "the deprecated 'function_call' field (send 'tool_choice')");
    if (endpoint == Endpoint::Completions) {
        for (const char* name : {"tools", "tool_choice", "response_format"}) {
            if (field(body, name) != nullptr) throw unsupported(name, "only in /v1/chat/completions");
        }
    }
    if (const json* modalities = field(body, "modalities"); modalities != nullptr && *modalities != json::array({"text"}))
        throw unsupported("modalities", "text only");
    for (const char* name : {"audio", "prediction", "web_search_options"}) {
        if (field(body, name) != nullptr) throw unsupported(name, "this feature does not exist in forge");
    }
}

void parse_sampling(const json& body, const RequestLimits& limits, CompletionRequest& r) {
    llm::SamplerOptions& s = r.generation.sampling;
    if (const json* v = field(body, "temperature")) s.temperature = static_cast<float>(number_in(*v, "temperature", 0.0, 100.0));
    if (const json* v = field(body, "top_p")) {
        s.top_p = static_cast<float>(number_in(*v, "top_p", 0.0, 1.0));
        if (s.top_p == 0.0f) s.top_p = 1e-6f;  // OpenAI allows 0: only the most likely token
    }
    if (const json* v = field(body, "top_k")) s.top_k = static_cast<std::int32_t>(integer_in(*v, "top_k", -1, limits.n_vocab));
    if (const json* v = field(body, "min_p")) s.min_p = static_cast<float>(number_in(*v, "min_p", 0.0, 1.0));
    if (const json* v = field(body, "repeat_penalty")) s.repeat_penalty = static_cast<float>(number_in(*v, "repeat_penalty", 1e-6, 100.0));
    if (const json* v = field(body, "presence_penalty")) s.presence_penalty = static_cast<float>(number_in(*v, "presence_penalty", -2.0, 2.0));
    if (const json* v = field(body, "frequency_penalty")) s.frequency_penalty = static_cast<float>(number_in(*v, "frequency_penalty", -2.0, 2.0));
    if (const json* v = field(body, "seed")) {
        if (!v->is_number_integer()) throw wrong_type("seed", "an integer");
        s.seed = v->is_number_unsigned() ? v->get<std::uint64_t>() : static_cast<std::uint64_t>(v->get<std::int64_t>());
    } else {
        s.seed = std::random_device{}();
    }
    if (const json* v = field(body, "logit_bias")) r.generation.logit_bias = parse_logit_bias(*v, limits.n_vocab);
    if (const json* v = field(body, "stop")) r.generation.stop = parse_stop(*v);
    if (const json* v = field(body, "lora")) r.lora_scales = parse_lora_scales(*v, limits.n_lora_adapters, "lora");
}

void parse_lengths(const json& body, const RequestLimits& limits, CompletionRequest& r) {
    r.generation.max_tokens = limits.default_max_tokens;
    constexpr std::int64_t kMostTokens = std::int64_t{1} << 40;
    // Later names win: max_completion_tokens is OpenAI's newer name for max_tokens; n_predict
    // is llama-server's (-1: until the end or the context is full).
    // OpenAI refuses a max_tokens below 1 (0 and negatives) with this message and code;
    // llama-server's n_predict 0 only reads the prompt, -1 has no limit.
    for (const char* name : {"max_tokens", "max_completion_tokens", "n_predict"}) {
        const json* v = field(body, name);
        if (v == nullptr) continue;
        const bool openai = std::string_view(name) != "n_predict";
        // (a parsed 0 is an unsigned number to nlohmann::json, -3 a signed one)
        const bool below_one = v->is_number_unsigned() ? v->get<std::uint64_t>() < 1 : v->is_number_integer() && v->get<std::int64_t>() < 1;
        if (openai && below_one)
            throw invalid_request(fmt::format("Invalid '{}': integer below minimum value. Expected a value >= 1, but got {} instead.", name,
                                              v->get<std::int64_t>()),
                                  name, "integer_below_min_value");
        r.generation.max_tokens = integer_in(*v, name, openai ? 1 : -1, kMostTokens);
    }
}

void parse_logprobs(const json& body, Endpoint endpoint, CompletionRequest& r) {
    const json* logprobs = field(body, "logprobs");
    if (endpoint == Endpoint::Completions) {  // legacy: an integer, how many alternatives
        if (logprobs == nullptr) return;
        r.generation.top_logprobs = static_cast<std::int32_t>(integer_in(*logprobs, "logprobs", 0, 20));
        r.logprobs = true;
        return;
    }
    if (logprobs != nullptr) r.logprobs = boolean(*logprobs, "logprobs");
    if (const json* top = field(body, "top_logprobs")) {
        r.generation.top_logprobs = static_cast<std::int32_t>(integer_in(*top, "top_logprobs", 0, 20));
        if (!r.logprobs) throw invalid_request("'top_logprobs' needs 'logprobs': true", "top_logprobs");
    }
}

void parse_stream(const json& body, CompletionRequest& r) {
    if (const json* v = field(body, "stream")) r.stream = boolean(*v, "stream");
    if (const json* options = field(body, "stream_options")) {
        if (!options->is_object()) throw wrong_type("stream_options", "an object");
        if (!r.stream) throw invalid_request("'stream_options' is only allowed when 'stream' is true", "stream_options");
        if (const json* usage = field(*options, "include_usage")) r.include_usage = boolean(*usage, "stream_options.include_usage");
    }
}

void parse_chat_options(const json& body, CompletionRequest& r) {
    const json* kwargs = field(body, "chat_template_kwargs");
    if (kwargs == nullptr) return;
    if (!kwargs->is_object()) throw wrong_type("chat_template_kwargs", "an object");
    if (const json* thinking = field(*kwargs, "enable_thinking"))
        r.chat.enable_thinking = boolean(*thinking, "chat_template_kwargs.enable_thinking");
}

// A SchemaError of the grammar engine as a 400 whose param is the path it names
// ("response_format.json_schema.schema/properties/age", "tools[0].function.parameters", "tool_choice").
ApiError schema_error(const llm::grammar::SchemaError& e) {
    const std::string prefix = fmt::format("JSON schema at {}: ", e.path());
    const std::string message = e.what();
    const std::string reason = message.starts_with(prefix) ? message.substr(prefix.size()) : message;
    return invalid_request(fmt::format("'{}': {}", e.path(), reason), e.path(), "invalid_schema");
}

using CompileGrammar = std::function<GrammarCache::GrammarPtr()>;

// A grammar through the server's cache (null: compiled each time).
GrammarCache::GrammarPtr compiled(const RequestLimits& limits, const std::string& key, const CompileGrammar& compile) {
    return limits.grammars != nullptr ? limits.grammars->get(key, compile) : compile();
}

// The field that asks for a constrained answer, if any: llama-server's `grammar` (GBNF; ""
// is none, as there) and `json_schema`, and OpenAI's `response_format` (chat; "text" is none).
// One answer follows one grammar, so two of them are a 400 naming both, as llama-server
// refuses `json_schema` with `grammar`.
const char* constraint_field(const json& body, Endpoint endpoint) {
    std::vector<const char*> asked;
    if (const json* g = field(body, "grammar"); g != nullptr && !string(*g, "grammar").empty()) asked.push_back("grammar");
    if (const json* schema = field(body, "json_schema")) {
        if (!schema->is_object() && !schema->is_boolean()) throw wrong_type("json_schema", "a JSON Schema (an object)");
        asked.push_back("json_schema");
    }
    if (const json* format = field(body, "response_format"); format != nullptr && endpoint == Endpoint::ChatCompletions) {
        const bool text = format->is_object() && format->contains("type") && (*format)["type"] == "text";
        if (!text) asked.push_back("response_format");
    }
    if (asked.size() > 1)
        throw invalid_request(fmt::format("'{}' and '{}' both constrain the answer: send one of them", asked[0], asked[1]), asked[1],
                              "conflicting_parameters");
    return asked.empty() ? nullptr : asked.front();
}

// The grammar `name` (from constraint_field) asks for; its errors are 400s naming the field
// or the schema path.
GrammarCache::GrammarPtr compile_constraint(const json& body, const std::string& name, const RequestLimits& limits) {
    const json& value = body[name];
    try {
        if (name == "grammar") {
            const std::string& text = value.get_ref<const std::string&>();
            return compiled(limits, "gbnf " + text, [&] { return llm::grammar::compile_gbnf(text); });
        }
        if (name == "json_schema")
            return compiled(limits, "json_schema " + value.dump(), [&] { return llm::grammar::compile_json_schema_field(value, name); });
        return compiled(limits, "response_format " + value.dump(), [&] { return llm::grammar::compile_response_format(value); });
    } catch (const llm::grammar::SchemaError& e) {
        throw schema_error(e);
    } catch (const llm::grammar::GbnfError& e) {
        throw invalid_request(fmt::format("'grammar': {}", e.what()), name, "invalid_grammar");
    } catch (const llm::grammar::GrammarLimitError& e) {  // too large or too ambiguous, where no schema path applies
        throw invalid_request(fmt::format("'{}': {}", name, e.what()), name, name == "grammar" ? "invalid_grammar" : "invalid_schema");
    }
}

// `grammar` / `json_schema` / response_format -> its grammar; tools / tool_choice /
// parallel_tool_calls (chat) -> the template's tools, whether to parse calls, and for
// "required" or a named function the grammar of a call.
void parse_structured_output(const json& body, Endpoint endpoint, const RequestLimits& limits, CompletionRequest& r) {
    const char* constraint = constraint_field(body, endpoint);
    if (constraint != nullptr) r.grammar = compile_constraint(body, constraint, limits);
    if (endpoint != Endpoint::ChatCompletions) return;
    const json* tools = field(body, "tools");
    const json* choice = field(body, "tool_choice");
    bool parallel = true;
    if (const json* p = field(body, "parallel_tool_calls")) parallel = boolean(*p, "parallel_tool_calls");
    try {
        r.tool_choice = llm::tool_calls::parse_tool_choice(choice ? *choice : json(), tools ? *tools : json());
        const bool have_tools = tools != nullptr && !tools->empty();
        if (!have_tools || r.tool_choice.mode == llm::tool_calls::ToolChoiceMode::None) return;
        // One grammar per answer: a structured answer and a call cannot both be enforced.
        if (constraint != nullptr)
            throw unsupported(constraint, "a constrained answer together with tools (send tool_choice 'none', or no grammar / json_schema / response_format)");
        r.chat.tools = *tools;
        r.parse_tool_calls = true;
        if (r.tool_choice.mode == llm::tool_calls::ToolChoiceMode::Auto) return;  // the model decides: nothing to enforce
        const std::string key = fmt::format("tools {} {} {} {}", llm::tool_calls::tool_format_name(limits.tool_format), parallel,
                                            choice != nullptr ? choice->dump() : "", tools->dump());
        r.grammar = compiled(limits, key, [&] { return llm::tool_calls::tool_call_grammar(limits.tool_format, *tools, r.tool_choice, parallel); });
    } catch (const llm::grammar::SchemaError& e) {
        throw schema_error(e);
    } catch (const llm::grammar::GrammarLimitError& e) {  // too large or too ambiguous, where no schema path applies
        throw invalid_request(e.what(), "tools", "invalid_schema");
    }
}

void accept_metadata(const json& body) {
    if (const json* model = field(body, "model")) string(*model, "model");
    if (const json* user = field(body, "user")) string(*user, "user");
    if (const json* metadata = field(body, "metadata"); metadata != nullptr && !metadata->is_object()) throw wrong_type("metadata", "an object");
    if (const json* store = field(body, "store")) boolean(*store, "store");
    if (const json* tier = field(body, "service_tier")) string(*tier, "service_tier");
}

}  // namespace

nlohmann::ordered_json parse_body(const std::string& text) {
    json body;
    try {
        // Bounded nesting: printing, comparing and compiling a document recurse along it, and
        // 400 KB of '[' as response_format overflowed the stack and took the server down.
        body = parse_ordered_json(text, "request body", kMaxDocumentDepth);
    } catch (const FormatError& e) {
        throw invalid_request(fmt::format("The request body is not valid JSON ({})", e.what()), {}, "invalid_json");
    }
    if (!body.is_object()) throw invalid_request("The request body must be a JSON object", {}, "invalid_json");
    return body;
}

CompletionRequest parse_request(Endpoint endpoint, const nlohmann::ordered_json& body, const RequestLimits& limits) {
    CompletionRequest r;
    r.endpoint = endpoint;
    refuse_unsupported(body, endpoint);
    accept_metadata(body);
    if (endpoint == Endpoint::ChatCompletions) {
        r.messages = parse_messages(body);
        parse_chat_options(body, r);
    } else {
        parse_prompt(body, limits, r);
    }
    parse_structured_output(body, endpoint, limits, r);
    parse_sampling(body, limits, r);
    parse_lengths(body, limits, r);
    parse_logprobs(body, endpoint, r);
    parse_stream(body, r);
    if (const json* v = field(body, "return_tokens")) r.return_tokens = boolean(*v, "return_tokens");
    return r;
}

}  // namespace forge::app::serve
