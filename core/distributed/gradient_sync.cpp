#include "core/distributed/gradient_sync.h"

#include "core/autograd/variable.h"
#include "core/error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>

namespace forge::distributed {

GradientSync::GradientSync(Communicator& comm, std::vector<Tensor> params, std::int64_t bucket_elements)
    : comm_(comm), params_(std::move(params)), bucket_of_(params_.size()), final_(params_.size(), false) {
    check(bucket_elements > 0, "gradient bucket size {} must be positive", bucket_elements);
    for (std::size_t i = params_.size(); i-- > 0;) {
        const Tensor& p = params_[i];
        check(p.autograd_meta() && ag::is_leaf(p), "gradient sync: parameter {} is not an autograd leaf", i);
        index_of_[p.autograd_meta().get()] = i;
        if (buckets_.empty() || static_cast<std::int64_t>(buckets_.back().values.size()) >= bucket_elements) {
            buckets_.emplace_back();
        }
        buckets_.back().params.push_back(i);
        buckets_.back().values.resize(buckets_.back().values.size() + static_cast<std::size_t>(p.numel()));
        bucket_of_[i] = buckets_.size() - 1;
    }
    if (comm_.size() > 1) thread_ = std::thread([this] { communicate(); });
}

GradientSync::~GradientSync() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        if (reduced_ < submitted_) {
            // Left in the middle of a step (an error unwinding this rank): the thread is inside
            // a sum that the other ranks can no longer finish, and joining it would hang. The
            // job cannot continue, so end all of it now.
            std::fprintf(stderr, "forge: rank %d of %d failed during a gradient sum; ending the job\n", comm_.rank(),
                         comm_.size());
            comm_.abort_job(1);
        }
    }
    changed_.notify_all();
    thread_.join();
}

ag::FinalGradientFn GradientSync::on_final_gradient() {
    if (comm_.size() == 1) return {};
    return [this](const ag::AutogradMeta& leaf) {
        const auto it = index_of_.find(&leaf);
        if (it != index_of_.end()) mark_final(it->second);
    };
}

void GradientSync::mark_final(std::size_t param) {
    if (final_[param]) return;
    final_[param] = true;
    ++buckets_[bucket_of_[param]].ready;
    submit_ready_buckets();
}

void GradientSync::submit_ready_buckets() {
    while (next_to_submit_ < buckets_.size() &&
           buckets_[next_to_submit_].ready == buckets_[next_to_submit_].params.size()) {
        submit(next_to_submit_++);
    }
}

// Packs the bucket's gradients (zeros where a parameter got none) and hands it to the thread.
void GradientSync::submit(std::size_t b) {
    Bucket& bucket = buckets_[b];
    float* out = bucket.values.data();
    for (const std::size_t i : bucket.params) {
        const auto n = static_cast<std::size_t>(params_[i].numel());
        const Tensor g = ag::grad(params_[i]);
        if (g.defined()) {
            const Tensor packed = g.contiguous();
            std::memcpy(out, packed.data<float>(), n * sizeof(float));
        } else {
            std::fill(out, out + n, 0.0f);
        }
        out += n;
    }
    {
        std::lock_guard lock(mutex_);
        ++submitted_;
    }
    changed_.notify_all();
}

void GradientSync::communicate() {
    for (;;) {
        std::size_t b = 0;
        {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] { return stopping_ || reduced_ < submitted_; });
            if (reduced_ == submitted_) return;  // stopping, nothing left
            b = reduced_;
        }
        const auto start = std::chrono::steady_clock::now();
        try {
            comm_.sum_in_rank_order(buckets_[b].values);
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
        {
            std::lock_guard lock(mutex_);
            reducing_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            ++reduced_;
        }
        changed_.notify_all();
    }
}

void GradientSync::finish() {
    if (comm_.size() == 1) return;
    for (std::size_t i = 0; i < params_.size(); ++i) {
        if (!final_[i]) mark_final(i);
    }
    const auto start = std::chrono::steady_clock::now();
    {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return reduced_ == buckets_.size(); });
        submitted_ = reduced_ = 0;
        reduce_seconds_ = std::exchange(reducing_seconds_, 0.0);
    }
    exposed_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    next_to_submit_ = 0;
    std::fill(final_.begin(), final_.end(), false);
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    for (Bucket& bucket : buckets_) {
        bucket.ready = 0;
        const float* in = bucket.values.data();
        for (const std::size_t i : bucket.params) {
            const Tensor& p = params_[i];
            ag::set_grad(p, Tensor::from(std::span<const float>(in, static_cast<std::size_t>(p.numel())), p.shape()));
            in += p.numel();
        }
    }
}

}  // namespace forge::distributed
