#include "app/serve/server.h"

#include "app/serve/api_error.h"
#include "core/infer/kv_cache.h"

#include <httplib.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

namespace forge::app::serve {

namespace {

using Clock = std::chrono::steady_clock;

// Set by SIGINT/SIGTERM; the main thread polls it (a handler may do nothing more).
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal) { g_stop_signal = signal; }

void install_signal_handlers() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is a failed write, not a dead server
}

llm::SchedulerOptions scheduler_options(const ServeOptions& o) {
    llm::SchedulerOptions s;
    s.n_slots = o.parallel;
    s.n_ctx = o.ctx_size;
    s.max_queue = o.queue;
    s.kv_type = llm::kv_type_from_name(o.kv_type);
    return s;
}

}  // namespace

Engine::Engine(const ServeOptions& options)
    : model(llm::Model::load(options.model)),
      format(model),
      scheduler(model, format.tokenizer(), scheduler_options(options)),
      vocabulary(std::make_shared<const llm::grammar::VocabularyIndex>(format.tokenizer())),
      tool_format(llm::tools::detect_tool_format(format.chat_template())) {}

Server::Server(ServeOptions options) : options_(std::move(options)), http_(std::make_unique<httplib::Server>()) {
    model_name_ = options_.alias.empty() ? std::filesystem::path(options_.model).filename().string() : options_.alias;
    started_ = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    // One HTTP thread per connection that can be busy at once: every slot, every queued request,
    // and some for /health, /metrics and requests that are refused. httplib takes ownership of
    // the pool it is given (its API needs a raw pointer).
    const auto threads = static_cast<std::size_t>(options_.parallel + options_.queue + 16);
    http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    http_->set_payload_max_length(options_.max_body);
    http_->set_keep_alive_timeout(2);  // seconds an idle connection is kept: also the longest a shutdown waits for one
    http_->set_read_timeout(30);
    http_->set_write_timeout(30);      // a client that reads nothing for this long is gone
    add_routes();
}

Server::~Server() = default;

Engine& Server::engine() const {
    if (!ready_.load()) throw unavailable("Loading model");
    return *engine_;
}

std::shared_ptr<llm::RequestHandle> Server::submit(llm::Request request) {
    std::lock_guard lock(submit_mutex_);
    if (stopping_) throw unavailable("The server is shutting down");
    try {
        return engine_->scheduler.submit(std::move(request));
    } catch (const llm::QueueFull& e) {
        ApiError error(503, fmt::format("The server is busy: {}", e.what()), "unavailable_error", {}, "queue_full");
        throw error;
    }
}

int Server::run() {
    install_signal_handlers();
    const int port = options_.port == 0 ? http_->bind_to_any_port(options_.host)
                                        : (http_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
    check(port > 0, "cannot listen on {}:{} (in use, or not an address of this machine)", options_.host, options_.port);
    spdlog::info("listening on http://{}:{} (model {}, {} slots of {} tokens)", options_.host, port, options_.model,
                 options_.parallel, options_.ctx_size);
    std::atomic<bool> listener_ended{false};
    std::thread listener([&] {
        http_->listen_after_bind();
        listener_ended.store(true);
    });
    try {
        const auto load_start = Clock::now();
        engine_ = std::make_unique<Engine>(options_);
        engine_->scheduler.start();
        ready_.store(true);
        spdlog::info("model loaded in {:.2f} s: {} ({}, {} layers); ready", std::chrono::duration<double>(Clock::now() - load_start).count(),
                     model_name_, engine_->model.hparams().arch_name, engine_->model.hparams().n_layer);
    } catch (...) {
        http_->stop();
        listener.join();
        throw;
    }
    while (g_stop_signal == 0 && !listener_ended.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    spdlog::info("{}: stopping", g_stop_signal == SIGINT ? "SIGINT" : g_stop_signal == SIGTERM ? "SIGTERM" : "listener ended");
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
    if (engine_) engine_->scheduler.stop();
    http_->stop();
}

}  // namespace forge::app::serve
