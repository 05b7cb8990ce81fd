// Ollama's API on `forge serve` (ollama/ollama docs/api.md), so that Ollama's clients and the
// tools built on them work unchanged:
//
//   POST /api/chat, POST /api/generate   NDJSON streams (default) or one object
//   GET  /api/tags, GET /api/ps          the served model
//   POST /api/show                       its details, GGUF metadata, template, capabilities
//   GET  /api/version                    the Ollama API level these routes follow
//   /api/pull, push, create, copy, delete 501: forge serves the file it was started with
//   HEAD /                               200, the probe of Ollama's CLI; GET / is the chat page,
//                                        or "Ollama is running" with --no-webui
//
// A request is the same request the OpenAI routes run (ollama_request.h translates it): the
// template, scheduler, tool-call parser and grammar engine are theirs; only the shapes differ
// (ollama_response.h). Errors are Ollama's {"error": "..."}.
#include "app/serve/api_error.h"
#include "app/serve/http_server.h"
#include "app/serve/json_reply.h"
#include "app/serve/ollama_request.h"
#include "app/serve/ollama_response.h"
#include "app/serve/openai_response.h"
#include "app/serve/request_stream.h"
#include "models/llm/answer_splitter.h"
#include "app/serve/server.h"
#include "models/llm/grammar/grammar_constraint.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string_view>

namespace forge::app::serve {

namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The Ollama API level these routes follow (its docs/api.md and the `ollama` npm client 0.6.4);
// clients compare it against the versions that introduced features (tools, think, format).
constexpr std::string_view kOllamaApiVersion = "0.12.0";

// JSON text in Ollama's key order; invalid UTF-8 (a token's bytes) replaced, as dump() does.
std::string ordered_dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

void send_ollama(httplib::Response& res, int status, const json& body) {
    res.status = status;
    res.set_content(ordered_dump(body), "application/json; charset=utf-8");
}

std::string ndjson_line(const json& value) { return ordered_dump(value) + "\n"; }

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Ollama names a model "name:tag" and reads a name without a tag as "name:latest".
std::string with_tag(const std::string& name) { return name.find(':') == std::string::npos ? name + ":latest" : name; }

// Whether the template has a switch for thinking (Ollama's "thinking" capability). Tools are
// every model's: a template that knows none gets them spelled out in the messages
// (models/llm/tool_calls/tool_prompt.h).
// gpt-oss always thinks (its analysis channel).
bool template_thinks(std::string_view chat_template) {
    return chat_template.find("enable_thinking") != std::string_view::npos || llm::tool_calls::is_harmony_template(chat_template);
}

// The answer's text as Ollama returns it: the thinking apart (with think: true, and always for
// gpt-oss, whose analysis channel is its thinking), the calls apart (with tools), each call once
// it is whole; the rest is content. Pieces in, pieces out, as they stream (answer_splitter.h).
class AnswerParts {
public:
    struct Piece {
        std::string thinking, content;
        std::span<const llm::ChatToolCall> calls;  // completed with this piece
        std::size_t first_call = 0;
        OllamaText text() const { return {thinking, content, calls, first_call}; }
        bool empty() const { return thinking.empty() && content.empty() && calls.empty(); }
    };

    explicit AnswerParts(llm::AnswerSplitter splitter) : splitter_(std::move(splitter)) {}

    Piece push(std::string_view text) { return completed(splitter_.push(text)); }
    Piece finish() { return completed(splitter_.finish()); }

    // A whole answer at once.
    Piece whole(std::string_view text) {
        Piece all = completed(splitter_.whole(text));
        all.calls = splitter_.calls();
        all.first_call = 0;
        return all;
    }

private:
    Piece completed(llm::AnswerPiece piece) {
        Piece out{std::move(piece.reasoning), std::move(piece.content), splitter_.calls().subspan(calls_sent_), calls_sent_};
        calls_sent_ = splitter_.calls().size();
        return out;
    }

    llm::AnswerSplitter splitter_;
    std::size_t calls_sent_ = 0;
};

// One streamed answer as NDJSON: a line per piece of text (tool calls as each is complete), then
// the done line with the counts and durations. A client that leaves cancels the request, as
// on the OpenAI routes (stream_writer.h).
struct OllamaStream {
    OllamaMeta meta;
    Clock::time_point arrived;
    double load_s = 0;
    std::shared_ptr<RequestStream> stream;
    std::shared_ptr<llm::RequestHandle> handle;
    Metrics* metrics = nullptr;
    std::shared_ptr<AnswerParts> answer;
    std::vector<std::int32_t> prompt;  // generate: the start of `context`
    ModelLease model;                  // pinned until the stream ends
};

void write_ollama_stream(const OllamaStream& s, const std::function<bool(std::string_view)>& write, const std::function<bool()>& alive) {
    const auto gone = [&] {
        s.stream->client_gone();
        s.handle->cancel();
        s.metrics->record_finished(s.handle->wait().stats);
    };
    const auto send = [&](const AnswerParts::Piece& piece) { return piece.empty() || write(ndjson_line(ollama_chunk(s.meta, piece.text()))); };
    while (true) {
        const bool done = s.handle->done();  // all text is in the stream before the request is done
        const std::string text = s.stream->take(done ? 0ms : 10ms).text;
        if (!text.empty() && !send(s.answer->push(text))) return gone();
        if (done) break;
        if (!alive()) return gone();
    }
    const llm::RequestResult result = s.handle->wait();
    s.metrics->record_finished(result.stats);
    if (!result.error.empty()) {
        write(ndjson_line(ollama_error(result.error)));
        return;
    }
    if (result.stats.finish == llm::FinishReason::Cancelled) {
        write(ndjson_line(ollama_error("The server is shutting down; the answer is incomplete")));
        return;
    }
    if (!send(s.answer->finish())) return;
    std::vector<std::int32_t> context = s.prompt;
    context.insert(context.end(), result.tokens.begin(), result.tokens.end());
    const OllamaTimes times{s.load_s, seconds_since(s.arrived)};
    write(ndjson_line(ollama_done(s.meta, {}, result.stats, times, s.meta.endpoint == OllamaEndpoint::Generate ? &context : nullptr)));
}

// The prompt must fit the context the request may use (options.num_ctx, at most the slot's);
// below the slot's, the answer ends where that context is full.
void fit_context(std::int64_t n_prompt, const OllamaRequest& request, std::int64_t ctx_size, std::int64_t& max_tokens) {
    const std::int64_t window = std::min(request.num_ctx.value_or(ctx_size), ctx_size);
    const char* input = request.endpoint == OllamaEndpoint::Chat ? "messages" : "prompt";
    if (n_prompt == 0) throw invalid_request("The prompt has no tokens", input);
    if (n_prompt >= window)
        throw invalid_request(fmt::format("The {} take {} tokens, more than the context of {} tokens ({}) leaves room for", input, n_prompt,
                                          window, request.num_ctx ? "options.num_ctx" : "the server's --ctx-size"),
                              input);
    if (window < ctx_size) max_tokens = max_tokens < 0 ? window - n_prompt : std::min(max_tokens, window - n_prompt);
}

void stream_ndjson(httplib::Response& res, const std::shared_ptr<OllamaStream>& context) {
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider("application/x-ndjson", [context](std::size_t, httplib::DataSink& sink) {
        write_ollama_stream(*context, [&](std::string_view bytes) { return sink.write(bytes.data(), bytes.size()); },
                            [&] { return sink.is_writable(); });
        sink.done();
        return true;
    },
    [context](bool) {  // however the response ends: a request nobody reads must not run on
        context->stream->client_gone();
        context->handle->cancel();
    });
}

}  // namespace

void Server::add_ollama_routes() {
    HttpServer& http = *http_;
    http.Post("/api/chat", [this](const httplib::Request& req, httplib::Response& res) { ollama_answer(req, res, OllamaEndpoint::Chat); });
    http.Post("/api/generate",
              [this](const httplib::Request& req, httplib::Response& res) { ollama_answer(req, res, OllamaEndpoint::Generate); });
    http.Get("/api/tags", [this](const httplib::Request& req, httplib::Response& res) { ollama_list(req, res, false); });
    http.Get("/api/ps", [this](const httplib::Request& req, httplib::Response& res) { ollama_list(req, res, true); });
    http.Post("/api/show", [this](const httplib::Request& req, httplib::Response& res) { ollama_describe(req, res); });
    http.Get("/api/version", [](const httplib::Request&, httplib::Response& res) {
        send_ollama(res, 200, {{"version", kOllamaApiVersion}, {"forge_version", FORGE_VERSION}});
    });
    // Managing models: forge serves the file it was started with. Said in Ollama's shape, so
    // that a client's "pull" button shows why (httplib's 404 would be OpenAI's envelope).
    const auto not_here = [](const httplib::Request& req, httplib::Response& res) {
        send_ollama(res, 501, ollama_error(fmt::format("{} {} is not supported by forge: it serves the GGUF file it was started "
                                                       "with (forge serve MODEL.gguf)", req.method, req.path)));
    };
    for (const char* path : {"/api/pull", "/api/push", "/api/create", "/api/copy"}) http.Post(path, not_here);
    http.Delete("/api/delete", not_here);
    // Ollama's CLI probes the server with HEAD / (httplib answers HEAD with the GET route,
    // without its body). A browser at / gets the chat page while the web UI is on.
    if (!options_.webui) {
        http.Get("/", [](const httplib::Request&, httplib::Response& res) { res.set_content("Ollama is running", "text/plain; charset=utf-8"); });
    }
}

// Ollama's names carry a tag ("qwen3:latest"); forge's models answer to their id, file name or
// stem, with ":latest" or without. Unlike the OpenAI routes with one model, a name not served
// is a 404 even then: Ollama clients pick names from /api/tags.
ModelLease Server::ollama_model(const std::string& name) {
    const std::string untagged = name.ends_with(":latest") ? name.substr(0, name.size() - 7) : name;
    if (registry_.find(untagged) < 0) throw ApiError(404, fmt::format("model '{}' not found", name), "not_found_error");
    return model_for(untagged);
}

void Server::ollama_answer(const httplib::Request& req, httplib::Response& res, OllamaEndpoint endpoint) {
    const auto arrived = Clock::now();
    try {
        const nlohmann::ordered_json body = parse_body(req.body);
        OllamaMeta meta{endpoint, ollama_model_name(body)};
        const ModelLease lease = ollama_model(meta.model);
        ChatModel& e = lease->chat_model("/api/embed");
        const RequestLimits limits{e.format.tokenizer().n_vocab(), options_.n_predict, e.tool_format, &grammars_};
        OllamaRequest request = parse_ollama_request(endpoint, body, limits);
        if (request.load_only) return send_ollama(res, 200, ollama_loaded(meta));
        CompletionRequest& c = request.completion;
        const bool thinks = template_thinks(e.format.chat_template());
        if (c.chat.enable_thinking == true && !thinks)
            throw invalid_request(fmt::format("\"{}\" does not support thinking", meta.model), "think");
        // Ollama's default for a model that thinks is think: true (told to the template, the
        // thinking returned apart). With think: false what the model still writes stays in the
        // content; raw prompts have no template and are never split.
        if (thinks && !c.chat.enable_thinking.has_value() && c.endpoint == Endpoint::ChatCompletions) c.chat.enable_thinking = true;
        if (c.grammar) c.generation.constraint = std::make_shared<llm::grammar::GrammarConstraint>(c.grammar, e.vocabulary);
        const bool thinking = c.chat.enable_thinking == true || llm::tool_calls::is_harmony_template(e.format.chat_template());
        const llm::AnswerFormat format = llm::answer_format(e.format.chat_template(), thinking);
        const auto answer = std::make_shared<AnswerParts>(llm::AnswerSplitter(format, e.tool_format, c.parse_tool_calls, random_id("call_", 16) + "_"));

        std::vector<std::int32_t> prompt = std::move(request.context);  // generate's earlier turns first
        const std::vector<std::int32_t> turn = prompt_tokens(e, c);
        prompt.insert(prompt.end(), turn.begin(), turn.end());
        fit_context(static_cast<std::int64_t>(prompt.size()), request, e.n_ctx, c.generation.max_tokens);

        auto stream = std::make_shared<RequestStream>();
        llm::Request job{prompt, c.generation, nullptr, {}};
        if (c.stream) job.sink = [stream](std::string_view piece) { return stream->push_text(piece); };
        const std::shared_ptr<llm::RequestHandle> handle = submit(e, std::move(job));
        const double load_s = seconds_since(arrived);
        if (endpoint == OllamaEndpoint::Chat) prompt.clear();  // `context` is generate's
        if (c.stream) {
            auto context = std::make_shared<OllamaStream>(
                OllamaStream{std::move(meta), arrived, load_s, stream, handle, &metrics_, answer, std::move(prompt), lease});
            stream_ndjson(res, context);
            return;
        }
        const llm::RequestResult result = wait_for_answer(*handle);
        metrics_.record_finished(result.stats);
        if (handle->cancelled()) return;  // the client is gone
        if (!result.error.empty()) throw ApiError(500, result.error, "server_error");
        if (result.stats.finish == llm::FinishReason::Cancelled) throw unavailable("The server is shutting down");
        const AnswerParts::Piece whole = answer->whole(result.text);
        prompt.insert(prompt.end(), result.tokens.begin(), result.tokens.end());
        const OllamaTimes times{load_s, seconds_since(arrived)};
        send_ollama(res, 200, ollama_done(meta, whole.text(), result.stats, times, endpoint == OllamaEndpoint::Generate ? &prompt : nullptr));
    } catch (const ApiError& error) {
        metrics_.record_rejected();
        send_error(res, error, req.path);  // Ollama's {"error": ...} (json_reply.h)
    }
}

namespace {

OllamaModelFacts facts_of(const LoadedModel& e) { return {with_tag(e.name), e.path, e.n_ctx()}; }

}  // namespace

// /api/tags: every model served, loaded or not (an unloaded one described from its GGUF header);
// /api/ps: the loaded ones, with their context. keep_alive unloads nothing: --models-max and
// --models-memory decide, so expires_at is far away.
void Server::ollama_list(const httplib::Request& req, httplib::Response& res, bool running) const {
    try {
        json models = json::array();
        for (const auto& status : registry_.statuses()) {
            if (running && !status.model) continue;
            if (status.model) {
                json entry = ollama_model_entry(facts_of(*status.model), status.model->file());
                if (running) {
                    entry["expires_at"] = "9999-12-31T23:59:59Z";
                    entry["size_vram"] = 0;
                    entry["context_length"] = status.model->n_ctx();
                }
                models.push_back(std::move(entry));
            } else {
                const OllamaModelFacts facts{with_tag(status.source.id), status.source.path, 0};
                try {
                    models.push_back(ollama_model_entry(facts, gguf::GgufFile::open(status.source.path)));
                } catch (const Error& error) {  // listed all the same: a request for it gets the load's error
                    spdlog::warn("/api/tags: {}: {}", status.source.path, error.what());
                }
            }
        }
        send_ollama(res, 200, {{"models", std::move(models)}});
    } catch (const ApiError& error) {
        send_error(res, error, req.path);
    }
}

void Server::ollama_describe(const httplib::Request& req, httplib::Response& res) {
    try {
        nlohmann::ordered_json body = parse_body(req.body);
        if (!body.contains("model") && body.contains("name")) body["model"] = body["name"];  // older clients send "name"
        const ModelLease lease = ollama_model(ollama_model_name(body));
        const LoadedModel& e = *lease;
        bool verbose = false;
        if (const auto it = body.find("verbose"); it != body.end() && !it->is_null()) {
            if (!it->is_boolean()) throw invalid_request("'verbose' must be a boolean", "verbose");
            verbose = it->get<bool>();
        }
        // Ollama's capabilities: an embedding model only embeds.
        const std::string chat_template = e.is_chat() ? e.chat->format.chat_template() : std::string();
        std::vector<std::string> capabilities = {"embedding"};
        if (e.is_chat()) capabilities = {"completion", "tools"};
        if (template_thinks(chat_template)) capabilities.emplace_back("thinking");
        send_ollama(res, 200, ollama_show(facts_of(e), e.file(), chat_template, capabilities, verbose));
    } catch (const ApiError& error) {
        send_error(res, error, req.path);
    }
}

}  // namespace forge::app::serve
