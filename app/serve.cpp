// `forge serve [MODEL.gguf|default] [-m FILE]... [--models-dir DIR] [--models-max N]
// [--models-memory MIB] [--host H] [--port P] [-np N] [-c N] [-n N] [--alias NAME]
// [--api-key KEY | --api-key-file F] [--cors-origin ORIGIN]... [--metrics] [--no-webui]
// [--queue N] [--threads N] [--threads-http N] [--timeout S] [--body-budget MIB]`
//
// An OpenAI-compatible HTTP server (app/serve/: server.h for its life and a request's, routes,
// request parsing, responses and streams, errors, metrics, the chat page). Options are spelled
// as llama-server spells the same ones; --ctx-size is per slot. docs/SERVE.md has the API.
#include "app/build_info.h"
#include "app/lora_flags.h"
#include "app/bundled_models.h"
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/serve/options.h"
#include "app/serve/server.h"
#include "app/speculation_flags.h"
#include "app/text_file.h"
#include "core/error.h"
#include "core/infer/kv_cache.h"
#include "core/thread_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>

namespace forge::app {

namespace {

// The positional GGUF file: the one given, or (none, or "default") the bundled chat model, as
// `forge chat` picks it; none when -m or --models-dir name the models instead.
std::string resolve_model(const serve::ServeOptions& o) {
    if (o.model.empty() && (!o.models.empty() || !o.models_dir.empty())) return {};
    return resolve_model(o.model, kBundledChatModel);
}

// --api-key-file: the key is the file's first line (trailing whitespace dropped).
std::string read_api_key(const std::string& path) {
    std::ifstream in(path);
    check(in.good(), "--api-key-file {}: cannot read the file", path);
    std::string key;
    std::getline(in, key);
    while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
    check(!key.empty(), "--api-key-file {}: the first line is empty", path);
    return key;
}

// GET /props' build_info, as llama-server spells it: "b<version>-<commit>".
std::string build_tag() {
    const BuildInfo info = build_info();
    return fmt::format("b{}-{}{}", info.version, info.commit.substr(0, 8), info.dirty ? "-dirty" : "");
}

// -c is capped per model at the length it was trained on, when the model loads (server.cpp).
int run_serve(serve::ServeOptions o, std::optional<std::int64_t> ctx_size, int threads, const SpeculationFlags& speculation) {
    o.speculation = speculation_options(speculation);
    if (speculation.lookup_file) o.lookup_text = read_text_file(*speculation.lookup_file);
    if (threads > 0) ThreadPool::set_global_threads(threads);
    check(o.lora.empty() || (o.models.empty() && o.models_dir.empty()),
          "--lora applies adapters to one model: serve it alone (without -m or --models-dir)");
    o.model = resolve_model(o);
    o.ctx_size_given = ctx_size.has_value();
    if (ctx_size) o.ctx_size = *ctx_size;
    o.build_info = build_tag();
    if (!o.api_key_file.empty()) o.api_key = read_api_key(o.api_key_file);
    serve::Server server(std::move(o));
    return server.run();
}

}  // namespace

std::vector<std::string> serve_flag_spellings(int argc, char** argv) {
    std::vector<std::string> args(argv, argv + argc);
    const auto serve = std::find(args.begin(), args.end(), "serve");
    for (auto it = serve; it != args.end(); ++it) {
        if (*it == "-np") *it = "--parallel";
        if (it->starts_with("-np=")) *it = "--parallel=" + it->substr(4);
    }
    return args;
}

void add_serve_command(CLI::App& forge, CommandTable& commands) {
    auto o = std::make_shared<serve::ServeOptions>();
    auto threads = std::make_shared<int>(0);
    auto ctx_size = std::make_shared<std::optional<std::int64_t>>();
    CLI::App* cmd = forge.add_subcommand("serve", "OpenAI-compatible HTTP server for a GGUF language model");
    cmd->add_option("MODEL", o->model, "GGUF model, or 'default': the bundled chat model (also when no model is given)");
    cmd->add_option("-m,--model", o->models, "Another GGUF model to serve, named by its file name (repeatable)");
    cmd->add_option("--models-dir", o->models_dir, "Serve every *.gguf in this folder, each named by its file's stem");
    cmd->add_option("--models-max", o->models_max,
                    "Models loaded at once; the least recently used idle one is unloaded for another (default 4)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1024}));
    cmd->add_option("--models-memory", o->models_memory_mib,
                    "MiB of model files loaded at once, counted by file size; 0: no limit (default 0)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 30));
    cmd->add_option("--host", o->host, "Address to listen on (default 127.0.0.1)");
    cmd->add_option("--port", o->port, "Port; 0 picks a free one (default 8080)")->check(CLI::Range(0, 65535));
    cmd->add_option("--parallel", o->parallel, "Slots: requests decoded at once; -np N works too (default 4)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{256}));
    cmd->add_option("-c,--ctx-size", *ctx_size,
                    "Context size per slot in tokens, at most the model's trained length (default 4096, or that length when smaller)")
        ->check(CLI::Range(std::int64_t{16}, infer::kMaxContext));
    cmd->add_option("-n,--n-predict", o->n_predict, "Default max_tokens, -1 until the end or the context is full (default -1)")
        ->check(CLI::Range(std::int64_t{-1}, std::int64_t{1} << 40));
    cmd->add_option("--alias", o->alias, "The model's name in the API, with one model (default: the file name)");
    auto* key = cmd->add_option("--api-key", o->api_key, "Require 'Authorization: Bearer KEY'")
                    ->check(non_empty("an empty key would turn authentication off"));
    cmd->add_option("--api-key-file", o->api_key_file, "Read the API key from the first line of a file")->excludes(key);
    cmd->add_option("--cors-origin", o->cors_origins,
                    "Let web pages from this origin call the API, e.g. http://localhost:5173; '*' for any (repeatable; "
                    "default: none, only forge's own page)");
    cmd->add_flag("--metrics", o->metrics, "Serve Prometheus metrics at GET /metrics");
    cmd->add_flag("!--no-webui", o->webui, "Do not serve the chat page at GET /");
    cmd->add_option("--queue", o->queue, "Requests waiting for a slot before 503 (default 64)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{4096}));
    cmd->add_option("--threads", *threads, "Compute threads (default: FORGE_THREADS, else all cores)")
        ->check(CLI::Range(1, ThreadPool::kMaxThreads));
    cmd->add_option("--kv-type", o->kv_type, "KV cache precision: f16 (default), f32 or q8_0")->check(kv_cache_type());
    cmd->add_option("--reasoning-format", o->reasoning_format,
                    "auto: a thinking model's reasoning apart from the chat answer (reasoning_content); none: left in the content "
                    "(default auto)")
        ->transform(CLI::CheckedTransformer(std::map<std::string, serve::ReasoningFormat>{{"auto", serve::ReasoningFormat::Auto},
                                                                                          {"none", serve::ReasoningFormat::None}}));
    cmd->add_option("--pooling", o->pooling, "Pooling of /v1/embeddings instead of the GGUF's pooling_type")->check(pooling_type());
    cmd->add_option("--threads-http", o->threads_http,
                    "Connections served at once; more get 503 except /health (default: parallel + queue + 16)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{ThreadPool::kMaxThreads}));
    cmd->add_option("--timeout", o->timeout,
                    "Seconds a read or write may wait, and a request's headers and body may take to arrive (default 30)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{3600}));
    cmd->add_option("--body-budget", o->body_budget_mib, "MiB of request bodies held at once; more get 503 (default 64)")
        ->check(CLI::Range(std::int64_t{8}, std::int64_t{1} << 20));
    add_lora_flag(*cmd, o->lora);
    auto speculation = std::make_shared<SpeculationFlags>();
    add_speculation_flags(*cmd, *speculation);
    commands.add(cmd, [o, ctx_size, threads, speculation] { return run_serve(*o, *ctx_size, *threads, *speculation); });
}

}  // namespace forge::app
