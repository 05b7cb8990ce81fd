// The models a server offers and the ones it holds loaded: a request's model is found, loaded
// on first use, and pinned while the request runs; models no request holds are unloaded
// least recently used first when one more would pass --models-max or --models-memory
// (residency_policy.h).
//
// Pinning: acquire() hands out a lease, a std::shared_ptr to the model that also counts, in
// its entry, the leases alive (copies of one lease, such as a stream's writer holding it,
// count once). A model with a lease is in use. Leases are only made by acquire(), under the
// registry's mutex, so a model seen with none under that mutex stays so until it is released:
// unloading never takes a model from under a request. Listings (statuses(), loaded()) hand
// out plain references, not leases: reading /v1/models never pins a model.
//
// Loading: the first request for a model loads it on its own thread, outside the mutex, so
// the other models keep serving. Requests for the same model that arrive meanwhile wait for
// that load (they never load it twice) and share its outcome: the model, or its failure.
// Unloaded models are destroyed before the new one loads, outside the mutex, so memory is
// given back first.
//
// `Loaded` is whatever a server holds for a loaded model (serve's LoadedModel; tests use a
// stand-in): the registry only creates it through the loader and destroys it.
#pragma once

#include "app/serve/api_error.h"
#include "app/serve/model_source.h"
#include "app/serve/residency_policy.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace forge::app::serve {

enum class ModelState { Unloaded, Loading, Loaded };

template <class Loaded>
class ModelRegistry {
public:
    using Loader = std::function<std::shared_ptr<Loaded>(const ModelSource&)>;

    // What /v1/models tells of one model.
    struct Status {
        ModelSource source;
        ModelState state = ModelState::Unloaded;
        std::string failure;              // why its last load failed (empty: it did not)
        std::shared_ptr<const Loaded> model;  // when loaded
    };

    ModelRegistry(std::vector<ModelSource> sources, ResidencyLimits limits, Loader load)
        : limits_(limits), load_(std::move(load)) {
        for (ModelSource& source : sources) {
            entries_.emplace_back();
            entries_.back().source = std::move(source);
        }
    }

    std::size_t size() const { return entries_.size(); }
    const ModelSource& source(std::size_t index) const { return entries_.at(index).source; }

    // The index of the model `name` names (id, file name or stem), or -1.
    std::ptrdiff_t find(std::string_view name) const {
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            if (entries_[i].source.answers_to(name)) return static_cast<std::ptrdiff_t>(i);
        }
        return -1;
    }

    // The model at `index`, loaded if it is not (waiting for a load under way). Throws ApiError:
    // 503 when the limits cannot make room because every loaded model is in use, or when the
    // registry is closed; 500 when the file does not load.
    std::shared_ptr<Loaded> acquire(std::size_t index) {
        std::unique_lock lock(mutex_);
        Entry& entry = entries_.at(index);
        const std::uint64_t attempt = entry.attempts;
        for (;;) {
            if (closed_) throw unavailable("The server is shutting down");
            if (entry.model) {
                entry.last_used = ++clock_;
                return lease(entry);
            }
            // The load this request waited for failed: it shares that outcome instead of trying again.
            if (!entry.loading && entry.attempts != attempt && !entry.failure.empty()) throw load_failed(entry);
            if (!entry.loading) break;
            changed_.wait(lock);
        }
        std::vector<std::shared_ptr<Loaded>> unloaded = make_room(entry);
        entry.loading = true;
        lock.unlock();
        unloaded.clear();  // destroyed here, outside the mutex, before the new model takes memory
        return finish_load(entry, lock);
    }

    std::vector<Status> statuses() const {
        std::lock_guard lock(mutex_);
        std::vector<Status> out;
        for (const Entry& entry : entries_) {
            const ModelState state = entry.model ? ModelState::Loaded : entry.loading ? ModelState::Loading : ModelState::Unloaded;
            out.push_back({entry.source, state, entry.failure, entry.model});
        }
        return out;
    }

    // The loaded models, in use or not (for metrics and shutdown).
    std::vector<std::shared_ptr<Loaded>> loaded() const {
        std::lock_guard lock(mutex_);
        std::vector<std::shared_ptr<Loaded>> out;
        for (const Entry& entry : entries_) {
            if (entry.model) out.push_back(entry.model);
        }
        return out;
    }

    // No more loads or leases (acquire() answers 503); returns the loaded models so that the
    // server ends their requests. A load under way finishes and is dropped.
    std::vector<std::shared_ptr<Loaded>> close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        changed_.notify_all();
        std::vector<std::shared_ptr<Loaded>> out;
        for (Entry& entry : entries_) {
            if (entry.model) out.push_back(std::move(entry.model));
        }
        return out;
    }

private:
    struct Entry {
        ModelSource source;
        std::shared_ptr<Loaded> model;  // null while unloaded or loading
        bool loading = false;
        std::uint64_t last_used = 0;
        std::uint64_t attempts = 0;  // loads finished, for requests waiting on one
        std::string failure;
        // Leases alive on this model (shared: a lease may end after the registry does).
        std::shared_ptr<std::atomic<std::int64_t>> leases = std::make_shared<std::atomic<std::int64_t>>(0);
    };

    // Under the mutex: take the models the policy unloads out of the registry.
    std::vector<std::shared_ptr<Loaded>> make_room(const Entry& incoming) {
        std::vector<Resident> resident;
        for (const Entry& entry : entries_) {
            if (entry.model) resident.push_back({entry.source.id, entry.source.bytes, entry.last_used, *entry.leases > 0});
            if (entry.loading) resident.push_back({entry.source.id, entry.source.bytes, entry.last_used, true});
        }
        const auto unload = models_to_unload(resident, incoming.source.bytes, limits_);
        if (!unload) {
            throw ApiError(503, fmt::format("Cannot load model {} now: the models loaded are all in use and no more fit "
                                            "(--models-max {}, --models-memory {} MiB); retry when one is free",
                                            incoming.source.id, limits_.max_models, limits_.max_bytes >> 20),
                           "unavailable_error", "model", "models_busy");
        }
        std::vector<std::shared_ptr<Loaded>> taken;
        for (const std::string& id : *unload) {
            for (Entry& entry : entries_) {
                if (entry.source.id != id) continue;
                spdlog::info("unloading model {} (least recently used) to make room for {}", id, incoming.source.id);
                taken.push_back(std::move(entry.model));
            }
        }
        return taken;
    }

    // Load `entry` (marked loading) without the mutex, then publish the outcome under it.
    std::shared_ptr<Loaded> finish_load(Entry& entry, std::unique_lock<std::mutex>& lock) {
        std::shared_ptr<Loaded> model;
        std::string failure;
        try {
            model = load_(entry.source);
        } catch (const std::exception& e) {
            failure = e.what();
        } catch (...) {
            failure = "unknown error";
        }
        lock.lock();
        entry.loading = false;
        ++entry.attempts;
        entry.failure = failure;
        changed_.notify_all();
        if (!failure.empty()) {
            spdlog::error("model {} did not load: {}", entry.source.id, failure);
            throw load_failed(entry);
        }
        if (closed_) {
            lock.unlock();
            model.reset();
            throw unavailable("The server is shutting down");
        }
        entry.model = std::move(model);
        entry.last_used = ++clock_;
        return lease(entry);
    }

    // Under the mutex: a lease on the loaded model of `entry`. The lease is the model's
    // shared_ptr aliased onto a token that holds the model and uncounts itself when the
    // last copy of the lease ends.
    static std::shared_ptr<Loaded> lease(Entry& entry) {
        struct Token {
            Token(std::shared_ptr<Loaded> m, std::shared_ptr<std::atomic<std::int64_t>> l)
                : model(std::move(m)), leases(std::move(l)) {
                ++*leases;
            }
            ~Token() { --*leases; }
            Token(const Token&) = delete;
            Token& operator=(const Token&) = delete;
            std::shared_ptr<Loaded> model;
            std::shared_ptr<std::atomic<std::int64_t>> leases;
        };
        auto token = std::make_shared<Token>(entry.model, entry.leases);
        return std::shared_ptr<Loaded>(token, token->model.get());
    }

    static ApiError load_failed(const Entry& entry) {
        return ApiError(500, fmt::format("Model {} did not load: {}", entry.source.id, entry.failure), "server_error", "model",
                        "model_load_failed");
    }

    ResidencyLimits limits_;
    Loader load_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<Entry> entries_;  // fixed after construction: entries never move
    std::uint64_t clock_ = 0;     // counts acquisitions: the order of last use
    bool closed_ = false;
};

}  // namespace forge::app::serve
