#include "kernels/lstm_cell.h"

#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {
namespace {

struct Gates {
    Batch i, f, g, o;
};

// One batch of lanes: the activated gates, the new cell value (in c) and the output.
template <typename Sigmoid, typename Tanh>
[[gnu::always_inline]] inline Batch step(Gates& z, Batch& c, Sigmoid sigma, Tanh tanh_) {
    z.i = sigma(z.i);
    z.f = sigma(z.f);
    z.g = tanh_(z.g);
    z.o = sigma(z.o);
    c = z.f * c + z.i * z.g;
    return z.o * tanh_(c);
}

template <typename Sigmoid, typename Tanh>
void run(std::span<float> gates, std::span<float> c, std::span<float> h, Sigmoid sigma, Tanh tanh_) {
    const std::size_t n = c.size();
    float* i = gates.data();
    float* f = i + n;
    float* g = f + n;
    float* o = g + n;
    std::size_t k = 0;
    for (; k + kLanes <= n; k += kLanes) {
        Gates z{Batch::load_unaligned(i + k), Batch::load_unaligned(f + k), Batch::load_unaligned(g + k),
                Batch::load_unaligned(o + k)};
        Batch cell = Batch::load_unaligned(c.data() + k);
        step(z, cell, sigma, tanh_).store_unaligned(h.data() + k);
        z.i.store_unaligned(i + k), z.f.store_unaligned(f + k), z.g.store_unaligned(g + k), z.o.store_unaligned(o + k);
        cell.store_unaligned(c.data() + k);
    }
    if (k < n) {  // the ragged tail through the same batch code (see load_tail)
        const std::size_t m = n - k;
        Gates z{load_tail(i + k, m, 0.0f), load_tail(f + k, m, 0.0f), load_tail(g + k, m, 0.0f),
                load_tail(o + k, m, 0.0f)};
        Batch cell = load_tail(c.data() + k, m, 0.0f);
        store_tail(step(z, cell, sigma, tanh_), h.data() + k, m);
        store_tail(z.i, i + k, m), store_tail(z.f, f + k, m), store_tail(z.g, g + k, m), store_tail(z.o, o + k, m);
        store_tail(cell, c.data() + k, m);
    }
}

}  // namespace

void lstm_cell(std::span<float> gates, std::span<float> c, std::span<float> h, bool fast) noexcept {
    if (fast) {
        run(gates, c, h, [](Batch x) { return fast_sigmoid(x); }, [](Batch x) { return fast_tanh(x); });
    } else {
        run(gates, c, h, [](Batch x) { return sigmoid(x); }, [](Batch x) { return exact_tanh(x); });
    }
}

}  // namespace forge::kernels::simd
