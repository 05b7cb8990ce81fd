#include "models/asr/batching.h"

#include "core/error.h"
#include "core/random/counter_rng.h"
#include "core/random/shuffle.h"
#include "nn/rel_position_attention.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace forge::asr {
namespace {

enum Stream : std::uint64_t { kJitter = 1, kShuffle = 2 };

}  // namespace

std::vector<std::vector<std::size_t>> duration_batches(std::span<const Utterance> utterances,
                                                       double max_padded_seconds, std::uint64_t seed,
                                                       std::uint64_t epoch) {
    check(max_padded_seconds > 0.0, "duration_batches: max_padded_seconds must be > 0, got {}", max_padded_seconds);
    const std::uint64_t jitter_key = random::stream_key(seed, epoch, kJitter);
    std::vector<double> sort_key(utterances.size());
    for (std::size_t i = 0; i < utterances.size(); ++i)
        sort_key[i] = utterances[i].duration * (0.95 + 0.1 * random::uniform(jitter_key, i));
    std::vector<std::size_t> order(utterances.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sort_key[a] < sort_key[b]; });

    std::vector<std::vector<std::size_t>> batches;
    double longest = 0.0;
    for (const std::size_t i : order) {
        const double next_longest = std::max(longest, utterances[i].duration);
        const bool fits = !batches.empty() &&
                          static_cast<double>(batches.back().size() + 1) * next_longest <= max_padded_seconds;
        if (fits) {
            batches.back().push_back(i);
            longest = next_longest;
        } else {
            batches.push_back({i});
            longest = utterances[i].duration;
        }
    }
    random::shuffle(std::span(batches), random::stream_key(seed, epoch, kShuffle));
    return batches;
}

void order_by_duration(std::vector<std::vector<std::size_t>>& batches, std::span<const Utterance> utterances) {
    const auto longest = [&](const std::vector<std::size_t>& batch) {
        double most = 0.0;
        for (const std::size_t i : batch) most = std::max(most, utterances[i].duration);
        return most;
    };
    std::stable_sort(batches.begin(), batches.end(),
                     [&](const auto& a, const auto& b) { return longest(a) < longest(b); });
}

PaddedBatch pad_batch(std::span<const Tensor> items) {
    check(!items.empty(), "pad_batch: no items");
    const std::int64_t rank = items[0].rank();
    check(rank == 1 || rank == 2, "pad_batch: items must be [T] or [T, F], got {}", items[0].shape().to_string());
    const std::int64_t width = rank == 2 ? items[0].size(1) : 1;
    std::int64_t longest = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const Tensor& t = items[i];
        check(t.dtype() == DType::F32 && t.rank() == rank && (rank == 1 || t.size(1) == width) && t.size(0) >= 1,
              "pad_batch: item {} is {} {}; expected f32 [T >= 1{}]", i, dtype_name(t.dtype()), t.shape().to_string(),
              rank == 2 ? fmt::format(", {}", width) : "");
        longest = std::max(longest, t.size(0));
    }
    const auto batch = static_cast<std::int64_t>(items.size());
    PaddedBatch out{rank == 2 ? Tensor::zeros({batch, longest, width}) : Tensor::zeros({batch, longest}), Tensor(), {}};
    float* values = out.values.data<float>();
    for (std::int64_t b = 0; b < batch; ++b) {
        const Tensor item = items[static_cast<std::size_t>(b)].contiguous();
        const std::int64_t length = item.size(0);
        std::memcpy(values + b * longest * width, item.data<float>(),
                    static_cast<std::size_t>(length * width) * sizeof(float));
        out.lengths.push_back(length);
    }
    // The encoder's own mask of valid frames (nn/), 1 where real, 0 where padding.
    out.mask = nn::padded_time_mask(out.lengths, longest).reshape(Shape{batch, longest});
    return out;
}

}  // namespace forge::asr
