#include "kernels/softmax.h"

#include "kernels/simd/vector_math.h"

#include <cmath>
#include <limits>

namespace forge::kernels::simd {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

// The scaled scores of the visible entries, a batch at a time. The ragged tail's unused lanes
// read as -inf (after scaling, so a negative scale cannot flip them), which makes them vanish
// from the max and contribute exp(-inf) = 0 to the sum.
class ScaledRow {
public:
    ScaledRow(std::span<const float> x, float scale) : x_(x), scale_(scale) {}

    std::size_t size() const { return x_.size(); }
    Batch load(std::size_t j) const {
        const std::size_t count = std::min(kLanes, x_.size() - j);
        if (count == kLanes) return scale_ * Batch::load_unaligned(x_.data() + j);
        return xsimd::select(lanes_below(count), scale_ * load_tail(x_.data() + j, count, 0.0f), Batch(-kInfinity));
    }

private:
    static xsimd::batch_bool<float> lanes_below(std::size_t count) {
        alignas(64) std::int32_t iota[kLanes];
        for (std::size_t lane = 0; lane < kLanes; ++lane) iota[lane] = static_cast<std::int32_t>(lane);
        return xsimd::bool_cast(IntBatch::load_aligned(iota) < IntBatch(static_cast<std::int32_t>(count)));
    }

    std::span<const float> x_;
    Batch scale_;
};

float max_of(const ScaledRow& row) {
    Batch m(-kInfinity);
    for (std::size_t j = 0; j < row.size(); j += kLanes) m = xsimd::max(m, row.load(j));
    return max_lanes(m);
}

// Stores exp(s - m) of every visible entry and returns their sum.
float store_exps(const ScaledRow& row, Batch m, float* y) {
    Batch total(0.0f);
    for (std::size_t j = 0; j < row.size(); j += kLanes) {
        const Batch e = xsimd::exp(row.load(j) - m);
        total += e;
        const std::size_t count = std::min(kLanes, row.size() - j);
        if (count == kLanes) e.store_unaligned(y + j);
        else store_tail(e, y + j, count);
    }
    return sum_lanes(total);
}

float sum_exps(const ScaledRow& row, Batch m) {
    Batch total(0.0f);
    for (std::size_t j = 0; j < row.size(); j += kLanes) total += xsimd::exp(row.load(j) - m);
    return sum_lanes(total);
}

}  // namespace

void softmax(std::span<const float> x, float scale, std::size_t visible, std::span<float> y) noexcept {
    const std::size_t n = std::min(visible, x.size());
    const ScaledRow row(x.first(n), scale);
    const float total = store_exps(row, Batch(max_of(row)), y.data());
    map_batches(y.first(n), y.first(n), [inverse = Batch(1.0f / total)](Batch e) { return e * inverse; });
    std::fill(y.begin() + static_cast<std::ptrdiff_t>(n), y.end(), 0.0f);
}

void log_softmax(std::span<const float> x, float scale, std::size_t visible, std::span<float> y) noexcept {
    const std::size_t n = std::min(visible, x.size());
    const ScaledRow row(x.first(n), scale);
    const float m = max_of(row);
    const Batch log_normalizer(m + std::log(sum_exps(row, Batch(m))));
    map_batches(x.first(n), y.first(n),
                [&, s = Batch(scale)](Batch v) { return s * v - log_normalizer; });
    std::fill(y.begin() + static_cast<std::ptrdiff_t>(n), y.end(), -kInfinity);
}

}  // namespace forge::kernels::simd
