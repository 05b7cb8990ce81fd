// Data-parallel gradients: after every rank's backward, each parameter's gradient becomes the
// sum over the ranks, reduced in buckets while the backward pass is still running.
//
//   GradientSync sync(comm, params);
//   ag::backward(loss_of_last_micro_batch, {}, sync.on_final_gradient());
//   sync.finish();  // ag::grad(p) now holds the sum over ranks, the same bits everywhere
//
// Buckets hold consecutive parameters in reverse order (the backward reaches the last layers
// first) up to `bucket_elements` each. A bucket is packed and handed to a communication
// thread as soon as its gradients are final (ag::backward's on_final_gradient) and every
// earlier bucket has gone, so every rank reduces the same buckets in the same order. The sum
// itself is Communicator::sum_in_rank_order: its order is fixed, so the result does not
// depend on timing. With one rank every call is a no-op.
#pragma once

#include "core/autograd/backward.h"
#include "core/distributed/communicator.h"
#include "core/tensor.h"

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace forge::distributed {

class GradientSync {
public:
    GradientSync(Communicator& comm, std::vector<Tensor> params, std::int64_t bucket_elements = std::int64_t{1} << 20);
    ~GradientSync();
    GradientSync(const GradientSync&) = delete;
    GradientSync& operator=(const GradientSync&) = delete;

    // For the backward of a step's last micro-batch (earlier ones only accumulate locally).
    ag::FinalGradientFn on_final_gradient();
    // Sends what has not gone yet (parameters the graph did not reach count as zeros), waits for
    // every bucket and writes the sums back as the parameters' gradients.
    void finish();

    std::size_t buckets() const { return buckets_.size(); }
    // Seconds finish() spent waiting for the communication thread in the last step: the part
    // of the reduction the backward pass did not hide.
    double exposed_seconds() const { return exposed_seconds_; }
    // Seconds the communication thread spent summing in the last step (hidden or not).
    double reduce_seconds() const { return reduce_seconds_; }

private:
    struct Bucket {
        std::vector<std::size_t> params;  // indices into params_
        std::vector<float> values;        // the packed gradients, then their sums
        std::size_t ready = 0;            // parameters whose gradient is final this step
    };

    void mark_final(std::size_t param);
    void submit_ready_buckets();
    void submit(std::size_t bucket);
    void communicate();  // the communication thread

    Communicator& comm_;
    std::vector<Tensor> params_;
    std::unordered_map<const ag::AutogradMeta*, std::size_t> index_of_;
    std::vector<std::size_t> bucket_of_;
    std::vector<bool> final_;
    std::vector<Bucket> buckets_;
    std::size_t next_to_submit_ = 0;
    double exposed_seconds_ = 0.0;
    double reduce_seconds_ = 0.0;

    std::mutex mutex_;
    std::condition_variable changed_;
    std::size_t submitted_ = 0, reduced_ = 0;  // guarded by mutex_
    double reducing_seconds_ = 0.0;            // guarded by mutex_: this step's sums so far
    bool stopping_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

}  // namespace forge::distributed
