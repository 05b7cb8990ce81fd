#include "models/llm/scheduler.h"

#include "core/checked_math.h"

#include <algorithm>

namespace forge::llm {

namespace {

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

std::int64_t common_prefix(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
    const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    return static_cast<std::int64_t>(ia - a.begin());
}

}  // namespace

bool RequestHandle::done() const {
    std::lock_guard lock(mutex_);
    return done_;
}

RequestResult RequestHandle::wait() const {
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return done_; });
    return result_;
}

bool RequestHandle::wait_for(std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return finished_.wait_for(lock, timeout, [&] { return done_; });
}

void RequestHandle::complete(RequestResult result) {
    {
        std::lock_guard lock(mutex_);
        result_ = std::move(result);
        done_ = true;
    }
    finished_.notify_all();
}

namespace {

// Decode rows one slot may add in a step: its pending token and a full draft.
std::int64_t rows_per_slot(const SchedulerOptions& options) {
    return Speculator::max_rows(options.speculation);
}

// Rows a forward pass may hold: the batch budget, and at least every slot's decode rows.
std::int64_t pass_rows(const SchedulerOptions& options) {
    return std::max(options.n_batch, options.n_slots * rows_per_slot(options));
}

}  // namespace

Scheduler::Scheduler(const Model& model, const Tokenizer& tokenizer, const SchedulerOptions& options)
    : model_(model),
      tokenizer_(tokenizer),
      options_(options),
      cache_(make_kv_cache(model, options.n_slots, options.n_ctx, options.kv_type, pass_rows(options))),
      forward_(model, pass_rows(options), cache_),
      batch_(pass_rows(options)),
      logits_(sz(options.n_slots * rows_per_slot(options) * model.hparams().n_vocab)),
      slots_(sz(options.n_slots)) {
    check(options.n_batch > 0 && options.max_queue > 0, "scheduler: the batch and the queue must hold at least one");
    check_draft_vocabulary(model, tokenizer, options.speculation);
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        Slot& slot = slots_[s];
        slot.tokens.reserve(sz(options.n_ctx));
        slot.speculator = std::make_unique<Speculator>(options.speculation, options.n_ctx);
        slot.emit = [this, s](std::string_view piece) {
            Slot& owner = slots_[s];
            owner.result.text += piece;
            return !owner.request->request_.sink || owner.request->request_.sink(piece);
        };
    }
}

Scheduler::~Scheduler() { stop(); }

std::shared_ptr<RequestHandle> Scheduler::submit(Request request) {
    auto handle = std::make_shared<RequestHandle>(std::move(request));
    {
        std::lock_guard lock(queue_mutex_);
        if (static_cast<std::int64_t>(queue_.size()) >= options_.max_queue) {
            throw QueueFull(fmt::format("the queue is full: {} requests are waiting for a slot (at most {})",
                                        queue_.size(), options_.max_queue));
        }
        queue_.push_back(handle);
    }
    queue_changed_.notify_all();
    return handle;
}

std::int64_t Scheduler::queued() const {
    std::lock_guard lock(queue_mutex_);
    return static_cast<std::int64_t>(queue_.size());
}

void Scheduler::start() {
    check(!thread_.joinable(), "scheduler: already started");
    stopping_ = false;
    thread_ = std::thread([this] { loop(); });
}

void Scheduler::stop() {
    {
        std::lock_guard lock(queue_mutex_);
        stopping_ = true;
    }
    queue_changed_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void Scheduler::loop() {
    while (true) {
        {
            // Checked between steps too, not only when idle: a stop() must not wait for every
            // running request to finish.
            std::lock_guard lock(queue_mutex_);
            if (stopping_) break;
        }
        if (step()) continue;
        std::unique_lock lock(queue_mutex_);
        queue_changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) break;
    }
    // Whatever is still running or waiting ends as cancelled: no submitter waits forever.
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        if (slots_[s].request) release(static_cast<std::int64_t>(s), FinishReason::Cancelled);
    }
    std::lock_guard lock(queue_mutex_);
    for (auto& request : queue_) {
        RequestResult result;
        result.stats.finish = FinishReason::Cancelled;
        request->complete(std::move(result));
    }
    queue_.clear();
    publish_slot_states();
}

bool Scheduler::step() {
    admit_waiting();
    fill_batch();
    if (batch_.empty()) {
        publish_slot_states();
        return false;
    }
    std::int64_t wanting = 0;
    for (const infer::BatchRow& row : batch_.rows()) wanting += row.wants_logits ? 1 : 0;
    const auto logits = std::span(logits_).first(sz(wanting * model_.hparams().n_vocab));
    forward_.run(batch_.rows(), cache_, logits);
    ++steps_;
    hand_out(logits);
    publish_slot_states();
    return true;
}

// Written in place: a step allocates nothing in steady state (decode_alloc_test).
void Scheduler::publish_slot_states() {
    std::lock_guard lock(states_mutex_);
    states_.resize(slots_.size());  // only the first time
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        const Slot& slot = slots_[s];
        SlotState state;
        state.n_cached = static_cast<std::int64_t>(slot.tokens.size());
        if (slot.request) {
            const std::int64_t max_tokens = slot.request->request_.generation.max_tokens;
            state.processing = true;
            state.n_prompt = static_cast<std::int64_t>(slot.request->request_.prompt.size());
            state.n_decoded = slot.generation->generated();
            state.n_remain = max_tokens < 0 ? -1 : std::max<std::int64_t>(0, max_tokens - state.n_decoded);
        }
        states_[s] = state;
    }
}

std::vector<SlotState> Scheduler::slot_states() const {
    std::lock_guard lock(states_mutex_);
    if (states_.empty()) return std::vector<SlotState>(slots_.size());  // before the first step: all idle
    return states_;
}

// Waiting requests take the free slots in order of arrival; a cancelled one ends unrun.
void Scheduler::admit_waiting() {
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        if (slots_[s].request && slots_[s].request->cancelled()) release(static_cast<std::int64_t>(s), FinishReason::Cancelled);
    }
    while (true) {
        std::shared_ptr<RequestHandle> next;
        {
            std::lock_guard lock(queue_mutex_);
            const bool free = std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.request; });
            if (queue_.empty() || !free) return;
            next = std::move(queue_.front());
            queue_.pop_front();
        }
        admit(std::move(next));
    }
}

// A prefix of slot s the cache can go back to: a slot whose sliding-window rings no longer
// hold the window before it shares nothing (KvCache::min_truncation).
std::int64_t Scheduler::reusable(std::size_t s, std::int64_t shared) const {
    return shared >= cache_.min_truncation(static_cast<std::int64_t>(s)) ? shared : 0;
}

// The idle slot sharing the longest prefix with `prompt` (at most all but its last token: that
// one is evaluated for its logits), else the least recently used; `source` is a busy slot
// whose longer prefix is worth copying, or -1.
std::int64_t Scheduler::choose_slot(const std::vector<std::int32_t>& prompt, std::span<const float> lora_scales,
                                    std::int64_t& cached, std::int64_t& source) const {
    const auto usable = static_cast<std::int64_t>(prompt.size()) - 1;
    // Keys and values computed under other LoRA scales are not this request's prefix.
    const auto prefix_of = [&](std::size_t s) -> std::int64_t {
        const std::span<const float> held = forward_.lora_scales(static_cast<std::int64_t>(s));
        if (!std::equal(held.begin(), held.end(), lora_scales.begin(), lora_scales.end())) return 0;
        return common_prefix(slots_[s].tokens, prompt);
    };
    std::int64_t best = -1;
    cached = 0;
    source = -1;
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        if (slots_[s].request) continue;
        const std::int64_t shared = reusable(s, std::min(usable, prefix_of(s)));
        const bool better = best < 0 || shared > cached ||
                            (shared == cached && slots_[s].last_used < slots_[sz(best)].last_used);
        if (better) {
            best = static_cast<std::int64_t>(s);
            cached = shared;
        }
    }
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        if (!slots_[s].request) continue;
        // Only what the busy slot's cache already holds (its prompt may still be in progress).
        const std::int64_t held = std::min<std::int64_t>(cache_.length(static_cast<std::int64_t>(s)),
                                                         static_cast<std::int64_t>(slots_[s].tokens.size()));
        const std::int64_t shared = reusable(s, std::min({usable, held, prefix_of(s)}));
        if (shared > cached) {
            cached = shared;
            source = static_cast<std::int64_t>(s);
        }
    }
    return best;
}

void Scheduler::admit(std::shared_ptr<RequestHandle> handle) {
    const Request& request = handle->request_;
    const auto n_prompt = static_cast<std::int64_t>(request.prompt.size());
    RequestResult failed;
    if (handle->cancelled()) {
        failed.stats.finish = FinishReason::Cancelled;
        return handle->complete(std::move(failed));
    }
    if (n_prompt == 0 || n_prompt > options_.n_ctx) {
        failed.error = n_prompt == 0 ? std::string("the prompt has no tokens")
                                     : fmt::format("the prompt has {} tokens, more than the context of {} per slot",
                                                   n_prompt, options_.n_ctx);
        return handle->complete(std::move(failed));
    }
    const lora::LoraStack* adapters = model_.lora();
    const std::vector<float> lora_scales =
        request.lora_scales.empty() && adapters ? adapters->default_scales() : request.lora_scales;
    if (lora_scales.size() != (adapters ? adapters->size() : 0)) {
        failed.error = fmt::format("the request gives {} LoRA scales, the model has {} adapters", lora_scales.size(),
                                   adapters ? adapters->size() : 0);
        return handle->complete(std::move(failed));
    }
    std::int64_t cached = 0, source = -1;
    const std::int64_t s = choose_slot(request.prompt, lora_scales, cached, source);
    Slot& slot = slots_[sz(s)];
    forward_.set_lora_scales(s, lora_scales);
    if (source >= 0) {
        cache_.copy_prefix(source, s, cached);
    } else {
        cache_.truncate(s, cached);
    }
    slot.tokens.assign(request.prompt.begin(), request.prompt.begin() + cached);
    slot.request = std::move(handle);
    ++running_;
    slot.prompt_done = sz(cached);
    slot.pending.reset();
    slot.sampler = std::make_unique<Sampler>(request.generation.sampling, model_.hparams().n_vocab);
    for (std::int32_t id : request.prompt) slot.sampler->accept(id);
    slot.generation = std::make_unique<GenerationState>(tokenizer_, request.generation, *slot.sampler);
    slot.speculator->start(request.prompt, request.generation.sampling);
    slot.result = RequestResult{};
    slot.result.slot = s;
    slot.result.stats.prompt_tokens = n_prompt;
    slot.result.stats.cached_tokens = cached;
    // At most what the slot's context can hold, whatever limit the request asked for.
    if (request.generation.max_tokens >= 0)
        slot.result.text.reserve(sz(std::min(request.generation.max_tokens, options_.n_ctx)) * 8 + 64);
    slot.piece.reserve(64);
    slot.started = Clock::now();
}

// The decode rows of every generating slot first (their latency matters most), then prompt
// chunks in slot order within what is left of the budget.
void Scheduler::fill_batch() {
    batch_.clear();
    const std::int64_t budget = std::max<std::int64_t>(options_.n_batch, options_.n_slots);
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        if (slots_[s].request && slots_[s].pending) add_decode_rows(static_cast<std::int64_t>(s));
    }
    for (std::size_t s = 0; s < slots_.size() && batch_.size() < budget; ++s) {
        Slot& slot = slots_[s];
        if (!slot.request) continue;
        const std::vector<std::int32_t>& prompt = slot.request->request_.prompt;
        while (slot.prompt_done < prompt.size() && batch_.size() < budget) {
            const bool last = slot.prompt_done + 1 == prompt.size();
            batch_.add({prompt[slot.prompt_done], static_cast<std::int64_t>(slot.tokens.size()),
                        static_cast<std::int64_t>(s), last});
            slot.tokens.push_back(prompt[slot.prompt_done]);
            ++slot.prompt_done;
        }
    }
}

// The pending token and its draft (models/llm/speculator.h), every row wanting logits.
void Scheduler::add_decode_rows(std::int64_t s) {
    Slot& slot = slots_[sz(s)];
    const std::int32_t pending = *slot.pending;
    slot.pending.reset();
    const auto position = static_cast<std::int64_t>(slot.tokens.size());
    const std::span<const std::int32_t> draft = slot.speculator->draft(pending, options_.n_ctx - position - 1);
    batch_.add({pending, position, s, true});
    slot.tokens.push_back(pending);
    for (const std::int32_t token : draft) {
        batch_.add({token, static_cast<std::int64_t>(slot.tokens.size()), s, true});
        slot.tokens.push_back(token);
    }
    slot.drafted = static_cast<std::int64_t>(draft.size());
}

// The rows that wanted logits come in runs of one slot (a prompt's last row, or a slot's
// decode rows): each run decides that slot's next token.
void Scheduler::hand_out(std::span<const float> logits) {
    const auto n_vocab = sz(model_.hparams().n_vocab);
    const std::span<const infer::BatchRow> rows = batch_.rows();
    std::size_t at = 0;
    for (std::size_t i = 0; i < rows.size();) {
        if (!rows[i].wants_logits) {
            ++i;
            continue;
        }
        std::size_t run = 1;
        while (i + run < rows.size() && rows[i + run].wants_logits && rows[i + run].slot == rows[i].slot) ++run;
        advance(rows[i].slot, logits.subspan(at * n_vocab, run * n_vocab));
        at += run;
        i += run;
    }
}

void Scheduler::advance(std::int64_t s, std::span<const float> logits) {
    Slot& slot = slots_[sz(s)];
    slot.last_used = steps_;
    if (slot.prompt_read == Clock::time_point{}) slot.prompt_read = Clock::now();  // its first logits
    Verdict verdict;
    try {
        verdict = slot.speculator->verify(*slot.generation, logits, slot.emit);
    } catch (const Error& e) {
        // The request's own input failed it here (a grammar too ambiguous at this point of the
        // text, models/llm/grammar/grammar_limits.h): that request ends with the error, the
        // others run on. (The slot's cache holds the KV of its tokens, drafts included: still
        // a valid prefix for the next request.)
        slot.result.error = e.what();
        return release(s, FinishReason::Cancelled);
    }
    // Roll the cache back past the first rejected guess.
    const std::int64_t rejected = slot.drafted - verdict.accepted;
    cache_.truncate(s, cache_.length(s) - rejected);
    slot.tokens.resize(slot.tokens.size() - sz(rejected));
    slot.drafted = 0;
    if (!verdict.next) return release(s, std::nullopt);
    if (verdict.cancelled || slot.request->cancelled()) return release(s, FinishReason::Cancelled);
    if (static_cast<std::int64_t>(slot.tokens.size()) >= options_.n_ctx) return release(s, FinishReason::ContextFull);
    slot.pending = *verdict.next;
}

// The request is over (`reason`, or why its GenerationState ended): it gets its result; the slot
// keeps its cached tokens for the next request's prefix.
void Scheduler::release(std::int64_t s, std::optional<FinishReason> reason) {
    Slot& slot = slots_[sz(s)];
    if (reason) {
        slot.generation->finish(*reason, slot.piece);
        if (!slot.piece.empty()) {
            slot.result.text += slot.piece;
            if (slot.request->request_.sink && *reason != FinishReason::Cancelled) slot.request->request_.sink(slot.piece);
        }
    }
    // Keep only what the cache really holds: a token sampled but never evaluated is not there.
    slot.tokens.resize(sz(std::min<std::int64_t>(cache_.length(s), static_cast<std::int64_t>(slot.tokens.size()))));
    const Clock::time_point now = Clock::now();
    GenerationStats& stats = slot.result.stats;
    stats.generated_tokens = slot.generation->generated();
    stats.finish = slot.generation->finish_reason();
    stats.drafted_tokens = slot.speculator->drafted();
    stats.accepted_tokens = slot.speculator->accepted();
    drafted_ += stats.drafted_tokens;
    accepted_ += stats.accepted_tokens;
    const bool read = slot.prompt_read != Clock::time_point{};
    stats.prompt_s = seconds_between(slot.started, read ? slot.prompt_read : now);
    stats.generate_s = read ? seconds_between(slot.prompt_read, now) : 0.0;
    slot.result.tokens = slot.generation->tokens();
    slot.request->complete(std::move(slot.result));
    slot.request.reset();
    --running_;
    slot.pending.reset();
    slot.drafted = 0;
    slot.generation.reset();
    slot.sampler.reset();
    slot.prompt_read = {};
    slot.last_used = steps_;
}

}  // namespace forge::llm
