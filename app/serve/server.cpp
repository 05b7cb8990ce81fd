#include "app/serve/server.h"

#include "app/serve/api_error.h"
#include "app/serve/http_server.h"
#include "app/serve/responses_api.h"
#include "app/signal_flag.h"

#include <httplib.h>
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <csignal>
#include <string_view>
#include <thread>

namespace forge::app::serve {

namespace {

using Clock = std::chrono::steady_clock;

// Why the server stops: SIGINT or SIGTERM (raised as flags, app/signal_flag.h, which the
// main thread polls), or the listener ending on its own.
std::string_view wait_for_stop(SignalFlag& interrupt, SignalFlag& terminate, const std::atomic<bool>& listener_ended) {
    for (;;) {
        if (interrupt.take()) return "SIGINT";
        if (terminate.take()) return "SIGTERM";
        if (listener_ended.load()) return "listener ended";
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

// One HTTP thread per connection that can be busy at once: by default every slot, every queued
// request, and some for /health, /metrics and requests that are refused.
HttpLimits http_limits(const ServeOptions& o) {
    HttpLimits limits;
    limits.max_connections = static_cast<std::size_t>(o.threads_http > 0 ? o.threads_http : o.parallel + o.queue + 16);
    limits.timeout = std::chrono::seconds(o.timeout);
    limits.max_body = o.max_body;
    limits.body_budget = static_cast<std::size_t>(o.body_budget_mib) << 20;
    return limits;
}

// The models to serve: the positional MODEL, the -m files, then --models-dir's.
std::vector<ModelSource> model_sources(const ServeOptions& o) {
    std::vector<std::string> files;
    if (!o.model.empty()) files.push_back(o.model);
    files.insert(files.end(), o.models.begin(), o.models.end());
    std::vector<ModelSource> sources = find_model_sources(files, o.models_dir, o.alias);
    for (const ModelSource& source : sources) {
        check(o.models_memory_mib == 0 || source.bytes <= static_cast<std::uint64_t>(o.models_memory_mib) << 20,
              "--models-memory {} MiB: model {} alone is {} MiB", o.models_memory_mib, source.path, (source.bytes + (1 << 20) - 1) >> 20);
    }
    return sources;
}

ResidencyLimits residency_limits(const ServeOptions& o) {
    return {static_cast<std::size_t>(o.models_max), static_cast<std::uint64_t>(o.models_memory_mib) << 20};
}

}  // namespace

Server::Server(ServeOptions options)
    : options_(std::move(options)),
      http_(std::make_unique<HttpServer>(http_limits(options_))),
      registry_(model_sources(options_), residency_limits(options_), [this](const ModelSource& source) { return load(source); }),
      cors_(options_.cors_origins) {
    started_ = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    add_routes();
}

Server::~Server() = default;

ModelLease Server::load(const ModelSource& source) const {
    const auto start = Clock::now();
    auto loaded = std::make_shared<LoadedModel>(source, options_);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!loaded->is_chat()) {
        spdlog::info("model loaded in {:.2f} s: {} ({}, an embedding model: {} values per vector, inputs of up to {} tokens)", seconds,
                     source.id, loaded->architecture, loaded->embedder->n_embd(), loaded->n_ctx());
        return loaded;
    }
    ChatModel& chat = *loaded->chat;
    chat.scheduler.start();
    spdlog::info("model loaded in {:.2f} s: {} ({}, {} layers, {} slots of {} tokens)", seconds, source.id, loaded->architecture,
                 chat.model.hparams().n_layer, options_.parallel, chat.n_ctx);
    return loaded;
}

ModelLease Server::model_for(const std::string& requested) {
    if (!ready_.load()) throw unavailable("Loading model");
    if (registry_.size() == 1) return registry_.acquire(0);  // one model: any name is that one, as in llama-server
    if (requested.empty()) {
        throw invalid_request(fmt::format("'model' is required: this server serves {} models (GET /v1/models lists them)",
                                          registry_.size()),
                              "model", "model_required");
    }
    const std::ptrdiff_t index = registry_.find(requested);
    if (index < 0) throw model_not_found(requested);
    return registry_.acquire(static_cast<std::size_t>(index));
}

ModelLease Server::model_for(const nlohmann::ordered_json& body) {
    const auto field = body.is_object() ? body.find("model") : body.end();
    if (field == body.end() || field->is_null()) return model_for(std::string());
    if (!field->is_string()) throw invalid_request("'model' must be a string", "model");
    return model_for(field->get<std::string>());
}

std::shared_ptr<llm::RequestHandle> Server::submit(ChatModel& chat, llm::Request request) {
    std::lock_guard lock(submit_mutex_);
    if (stopping_) throw unavailable("The server is shutting down");
    if (request.lora_scales.empty()) request.lora_scales = chat.lora_scales.get();
    try {
        return chat.scheduler.submit(std::move(request));
    } catch (const llm::QueueFull& e) {
        ApiError error(503, fmt::format("The server is busy: {}", e.what()), "unavailable_error", {}, "queue_full");
        throw error;
    }
}

int Server::run() {
    SignalFlag interrupt(SIGINT), terminate(SIGTERM);
    std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is a failed write, not a dead server
    // glibc raises its mmap threshold to the largest block freed (up to 32 MiB), so after one
    // 8 MiB body every later one came from the heap and stayed there: sequential bodies
    // ratcheted the RSS to ~1 GB. A fixed threshold keeps blocks of 1 MiB or more in their own
    // mappings, returned when freed (tensors come from forge's BufferPool, not malloc).
    ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
    const int port = http_->bind(options_.host, options_.port);
    check(port > 0, "cannot listen on {}:{} (in use, or not an address of this machine)", options_.host, options_.port);
    spdlog::info("listening on http://{}:{} ({} model{}, {} slots each, {} connections)", options_.host, port, registry_.size(),
                 registry_.size() == 1 ? "" : "s", options_.parallel, http_->limits().max_connections);
    std::atomic<bool> listener_ended{false};
    std::thread listener([&] {
        http_->listen_after_bind();
        listener_ended.store(true);
    });
    try {
        // One model is loaded now, as before (a file that does not load ends the server); many
        // load on first use.
        if (registry_.size() == 1) registry_.acquire(0);
        ready_.store(true);
        spdlog::info("ready: {}", registry_.size() == 1 ? registry_.source(0).id
                                                         : fmt::format("{} models, each loaded on first use", registry_.size()));
    } catch (...) {
        http_->stop();
        listener.join();
        throw;
    }
    spdlog::info("{}: stopping", wait_for_stop(interrupt, terminate, listener_ended));
    shutdown();
    listener.join();
    spdlog::info("stopped");
    return 0;
}

// New requests get 503; running and queued ones end as cancelled (streams send an error
// event, waiting requests a 503), then the listener closes and its threads finish.
void Server::shutdown() {
    {
        std::lock_guard lock(submit_mutex_);
        stopping_ = true;
    }
    for (const auto& loaded : registry_.close()) {
        if (loaded->is_chat()) loaded->chat->scheduler.stop();
    }
    http_->stop();
}

}  // namespace forge::app::serve
