#include "models/llm/sampler.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>

namespace forge::llm {

namespace {

bool by_logit_then_id(const auto& a, const auto& b) { return a.logit > b.logit || (a.logit == b.logit && a.id < b.id); }

}  // namespace

Sampler::Sampler(const SamplerOptions& options, std::int64_t n_vocab) : options_(options), rng_(options.seed) {
    check(n_vocab > 0, "sampler: empty vocabulary");
    // Written so that NaN fails every check; infinities are rejected explicitly.
    for (const float value : {options.temperature, options.top_p, options.min_p, options.repeat_penalty,
                              options.frequency_penalty, options.presence_penalty})
        check(std::isfinite(value), "sampling parameters must be finite numbers, got {}", value);
    check(options.temperature >= 0.0f, "--temp must be >= 0, got {}", options.temperature);
    check(options.top_p > 0.0f && options.top_p <= 1.0f, "--top-p must be in (0, 1], got {}", options.top_p);
    check(options.min_p >= 0.0f && options.min_p <= 1.0f, "--min-p must be in [0, 1], got {}", options.min_p);
    check(options.repeat_penalty > 0.0f, "--repeat-penalty must be positive, got {}", options.repeat_penalty);
    check(options.penalty_window >= 0 && options.penalty_window <= (1 << 20),
          "the penalty window must be 0 to {}, got {}", 1 << 20, options.penalty_window);
    candidates_.reserve(static_cast<std::size_t>(n_vocab));
    history_.resize(static_cast<std::size_t>(options.penalty_window));
    counted_.reserve(history_.size());
    residual_.reserve(static_cast<std::size_t>(n_vocab));
}

void Sampler::accept(std::int32_t token) {
    if (history_.empty()) return;
    history_[history_next_] = token;
    history_next_ = (history_next_ + 1) % history_.size();
    history_size_ = std::min(history_size_ + 1, history_.size());
}

void Sampler::reset() {
    history_next_ = 0;
    history_size_ = 0;
}

std::int32_t Sampler::sample(std::span<const float> logits) {
    distribution(logits);
    if (options_.temperature == 0.0f) return candidates_.front().id;
    return draw();
}

std::span<const Sampler::Candidate> Sampler::distribution(std::span<const float> logits) {
    candidates_.clear();
    for (std::size_t i = 0; i < logits.size(); ++i) candidates_.push_back({static_cast<std::int32_t>(i), logits[i], 0.0f});
    apply_penalties();
    if (options_.temperature == 0.0f) {
        const Candidate best = greedy();
        candidates_.assign(1, {best.id, best.logit, 1.0f});  // within capacity: no allocation
        return candidates_;
    }
    if (options_.top_k > 0) keep_top_k(static_cast<std::size_t>(options_.top_k));
    if (options_.top_p < 1.0f) keep_top_p();
    if (options_.min_p > 0.0f) keep_min_p();
    for (Candidate& c : candidates_) c.logit /= options_.temperature;
    softmax();
    return candidates_;
}

// llama.cpp's penalties: each distinct token in the window once, by its count there.
void Sampler::apply_penalties() {
    const bool active = options_.repeat_penalty != 1.0f || options_.frequency_penalty != 0.0f ||
                        options_.presence_penalty != 0.0f;
    if (!active || history_size_ == 0) return;
    counted_.clear();
    for (std::size_t i = 0; i < history_size_; ++i) {
        const std::int32_t id = history_[i];
        if (std::find(counted_.begin(), counted_.end(), id) != counted_.end()) continue;
        counted_.push_back(id);
        if (id < 0 || static_cast<std::size_t>(id) >= candidates_.size()) continue;
        const auto count = static_cast<float>(std::count(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(history_size_), id));
        float& logit = candidates_[static_cast<std::size_t>(id)].logit;  // candidates are still in id order
        logit = logit > 0.0f ? logit / options_.repeat_penalty : logit * options_.repeat_penalty;
        logit -= count * options_.frequency_penalty + options_.presence_penalty;
    }
}

Sampler::Candidate Sampler::greedy() const {
    return *std::min_element(candidates_.begin(), candidates_.end(), by_logit_then_id<Candidate, Candidate>);
}

void Sampler::keep_top_k(std::size_t k) {
    k = std::min(k, candidates_.size());
    std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<std::ptrdiff_t>(k), candidates_.end(),
                      by_logit_then_id<Candidate, Candidate>);
    candidates_.resize(k);
}

// Probabilities of the surviving candidates (sorted by logit, so p is non-increasing).
void Sampler::softmax() {
    const float max_logit = std::max_element(candidates_.begin(), candidates_.end(), [](const auto& a, const auto& b) {
                                return a.logit < b.logit;
                            })->logit;
    double sum = 0.0;
    for (Candidate& c : candidates_) sum += c.p = std::exp(c.logit - max_logit);
    for (Candidate& c : candidates_) c.p = static_cast<float>(c.p / sum);
}

// The smallest set of most likely tokens whose probabilities add up to top_p (at least one).
void Sampler::keep_top_p() {
    if (options_.top_k <= 0) {  // top-k has not sorted them yet
        std::sort(candidates_.begin(), candidates_.end(), by_logit_then_id<Candidate, Candidate>);
    }
    softmax();
    double cumulative = 0.0;
    std::size_t keep = 0;
    while (keep < candidates_.size()) {
        cumulative += candidates_[keep++].p;
        if (cumulative >= options_.top_p) break;
    }
    candidates_.resize(keep);
}

// Tokens at least min_p times as likely as the most likely one.
void Sampler::keep_min_p() {
    softmax();
    const float best = std::max_element(candidates_.begin(), candidates_.end(), [](const auto& a, const auto& b) {
                           return a.p < b.p;
                       })->p;
    std::erase_if(candidates_, [&](const Candidate& c) { return c.p < options_.min_p * best; });
}

// A draw from the probabilities distribution() left in candidates_.
std::int32_t Sampler::draw() { return pick(candidates_, uniform(rng_)); }

std::int32_t Sampler::pick(std::span<const Candidate> candidates, double u) {
    double cumulative = 0.0;
    for (const Candidate& c : candidates) {
        cumulative += c.p;
        if (u < cumulative) return c.id;
    }
    return candidates.back().id;
}

std::int32_t Sampler::sample_against(std::span<const float> logits, std::int32_t guess,
                                     std::span<const Candidate> guess_distribution) {
    distribution(logits);
    if (options_.temperature == 0.0f) return candidates_.front().id;
    const auto q_of = [&](std::int32_t id) {
        const auto it = std::lower_bound(guess_distribution.begin(), guess_distribution.end(), id,
                                         [](const Candidate& c, std::int32_t x) { return c.id < x; });
        return it != guess_distribution.end() && it->id == id ? static_cast<double>(it->p) : 0.0;
    };
    const auto p = std::find_if(candidates_.begin(), candidates_.end(), [&](const Candidate& c) { return c.id == guess; });
    const double p_guess = p == candidates_.end() ? 0.0 : static_cast<double>(p->p);
    const double q_guess = q_of(guess);
    if (q_guess > 0.0 && uniform(rng_) * q_guess < p_guess) return guess;
    // Rejected (so p(guess) < q(guess): the guess has no residual mass).
    residual_.clear();
    double sum = 0.0;
    for (const Candidate& c : candidates_) {
        const double r = std::max(0.0, static_cast<double>(c.p) - q_of(c.id));
        if (r > 0.0 && c.id != guess) {
            residual_.push_back({c.id, c.logit, static_cast<float>(r)});
            sum += r;
        }
    }
    if (sum <= 0.0) return draw();  // p == q up to rounding: p itself
    return pick(residual_, uniform(rng_) * sum);  // the residual unnormalised: u scaled instead
}

}  // namespace forge::llm
