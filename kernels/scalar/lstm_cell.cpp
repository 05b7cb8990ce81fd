#include "kernels/lstm_cell.h"

#include "kernels/scalar/activation_math.h"

#include <cmath>
#include <cstddef>

namespace forge::kernels::scalar {
namespace {

template <typename Sigmoid, typename Tanh>
void run(std::span<float> gates, std::span<float> c, std::span<float> h, Sigmoid sigma, Tanh tanh_) {
    const std::size_t n = c.size();
    float* i = gates.data();
    float* f = i + n;
    float* g = f + n;
    float* o = g + n;
    for (std::size_t k = 0; k < n; ++k) {
        i[k] = sigma(i[k]);
        f[k] = sigma(f[k]);
        g[k] = tanh_(g[k]);
        o[k] = sigma(o[k]);
        c[k] = f[k] * c[k] + i[k] * g[k];
        h[k] = o[k] * tanh_(c[k]);
    }
}

}  // namespace

void lstm_cell(std::span<float> gates, std::span<float> c, std::span<float> h, bool fast) noexcept {
    if (fast) {
        run(gates, c, h, fast_sigmoid, fast_tanh);
    } else {
        run(gates, c, h, sigmoid, [](float x) { return std::tanh(x); });
    }
}

}  // namespace forge::kernels::scalar
