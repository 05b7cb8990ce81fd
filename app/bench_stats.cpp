#include "app/bench_stats.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace forge::app::bench {

Summary summarize(std::span<const double> reps) {
    check(!reps.empty(), "a benchmark row needs at least one repetition");
    std::vector<double> sorted(reps.begin(), reps.end());
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    Summary s;
    s.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    s.min = sorted.front();
    s.max = sorted.back();
    if (n > 1) {
        const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
        double squares = 0;
        for (double v : sorted) squares += (v - mean) * (v - mean);
        const double stdev = std::sqrt(squares / static_cast<double>(n - 1));
        s.cv = mean != 0 ? stdev / std::abs(mean) : 0.0;
    }
    return s;
}

bool is_noisy(const Summary& summary, std::size_t rep_count) {
    return summary.cv > kNoisyCv || rep_count < static_cast<std::size_t>(kMinSteadyReps);
}

}  // namespace forge::app::bench
