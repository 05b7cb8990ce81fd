#include "app/serve/server.h"

#include "app/serve/api_error.h"
#include "app/serve/http_server.h"
#include "app/serve/prompt_budget.h"
#include "app/signal_flag.h"
#include "core/infer/kv_cache.h"
#include "models/llm/llama_embedding_model.h"

#include <httplib.h>
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <csignal>
#include <filesystem>
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

llm::SchedulerOptions scheduler_options(const ServeOptions& o) {
    llm::SchedulerOptions s;
    s.n_slots = o.parallel;
    s.n_ctx = o.ctx_size;
    s.max_queue = o.queue;
    s.kv_type = llm::kv_type_from_name(o.kv_type);
    return s;
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

}  // namespace

LoadedModel::LoadedModel(const ServeOptions& options)
    : model(llm::Model::load(options.model)),
      format(model),
      scheduler(model, format.tokenizer(), scheduler_options(options)),
      vocabulary(std::make_shared<const llm::grammar::VocabularyIndex>(format.tokenizer())),
      tool_format(llm::tool_calls::detect_tool_format(format.chat_template())),
      longest_token(longest_token_bytes(format.tokenizer())) {
    llm::EmbeddingOptions encoder;
    if (!options.pooling.empty()) encoder.pooling = llm::pooling_from_name(options.pooling);
    encoder.n_ctx = options.ctx_size;
    // The encoder shares this load of the model (a non-owning pointer: it is destroyed first).
    embedder = std::make_unique<llm::LlamaEmbeddingModel>(std::shared_ptr<const llm::Model>(std::shared_ptr<const llm::Model>(), &model),
                                                          encoder);
}

Server::Server(ServeOptions options) : options_(std::move(options)), http_(std::make_unique<HttpServer>(http_limits(options_))) {
    model_name_ = options_.alias.empty() ? std::filesystem::path(options_.model).filename().string() : options_.alias;
    started_ = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    add_routes();
}

Server::~Server() = default;

LoadedModel& Server::loaded_model() const {
    if (!ready_.load()) throw unavailable("Loading model");
    return *loaded_model_;
}

std::shared_ptr<llm::RequestHandle> Server::submit(llm::Request request) {
    std::lock_guard lock(submit_mutex_);
    if (stopping_) throw unavailable("The server is shutting down");
    try {
        return loaded_model_->scheduler.submit(std::move(request));
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
    spdlog::info("listening on http://{}:{} (model {}, {} slots of {} tokens, {} connections)", options_.host, port,
                 options_.model, options_.parallel, options_.ctx_size, http_->limits().max_connections);
    std::atomic<bool> listener_ended{false};
    std::thread listener([&] {
        http_->listen_after_bind();
        listener_ended.store(true);
    });
    try {
        const auto load_start = Clock::now();
        loaded_model_ = std::make_unique<LoadedModel>(options_);
        loaded_model_->scheduler.start();
        ready_.store(true);
        spdlog::info("model loaded in {:.2f} s: {} ({}, {} layers); ready", std::chrono::duration<double>(Clock::now() - load_start).count(),
                     model_name_, loaded_model_->model.hparams().arch_name, loaded_model_->model.hparams().n_layer);
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
    if (loaded_model_) loaded_model_->scheduler.stop();
    http_->stop();
}

}  // namespace forge::app::serve
