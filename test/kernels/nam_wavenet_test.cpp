// The fused NAM WaveNet layer: the scalar kernel against a hand-computed layer everywhere,
// the simd kernel against the scalar one in simd builds (shapes around the register tiles,
// every gating mode, ragged frame counts, with and without the optional 1x1s).
#include "kernels/nam_wavenet.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::uniform;

// Owns the weights and signals of one layer; `call()` points a NamWaveNetLayer at them.
struct LayerData {
    std::int64_t channels, bottleneck, condition, kernel, dilation, frames, head_size;
    NamGating gating;
    bool layer1x1, head1x1;
    std::vector<float> conv, conv_bias, mixin, w1x1, b1x1, wh, bh, input, cond, z, next, head;

    LayerData(std::int64_t c, std::int64_t b, std::int64_t m, std::int64_t k, std::int64_t d, std::int64_t t,
              NamGating g, bool with_1x1, bool with_head1x1, std::uint32_t seed)
        : channels(c), bottleneck(b), condition(m), kernel(k), dilation(d), frames(t),
          head_size(with_head1x1 ? 3 : b), gating(g), layer1x1(with_1x1), head1x1(with_head1x1) {
        const std::int64_t rows = g == NamGating::None ? b : 2 * b;
        const auto n = [](std::int64_t v) { return static_cast<std::size_t>(v); };
        conv = uniform(n(k * c * rows), -0.5f, 0.5f, seed);
        conv_bias = uniform(n(rows), -0.5f, 0.5f, seed + 1);
        mixin = uniform(n(m * rows), -0.5f, 0.5f, seed + 2);
        w1x1 = uniform(n(b * c), -0.5f, 0.5f, seed + 3);
        b1x1 = uniform(n(c), -0.5f, 0.5f, seed + 4);
        wh = uniform(n(b * head_size), -0.5f, 0.5f, seed + 5);
        bh = uniform(n(head_size), -0.5f, 0.5f, seed + 6);
        input = uniform(n(c * (history() + t)), -1.0f, 1.0f, seed + 7);
        cond = uniform(n(m * t), -1.0f, 1.0f, seed + 8);
        z.assign(n(rows * t), 0.0f);
        next.assign(n(c * t), 0.0f);
        head = uniform(n(head_size * t), -1.0f, 1.0f, seed + 9);
    }
    std::int64_t history() const { return (kernel - 1) * dilation; }

    NamWaveNetLayer call(UnaryOp activation) {
        NamWaveNetLayer l{};
        l.channels = channels;
        l.bottleneck = bottleneck;
        l.condition_size = condition;
        l.kernel_size = kernel;
        l.dilation = dilation;
        l.gating = gating;
        l.activation = activation;
        l.secondary = UnaryOp::Sigmoid;
        l.conv = conv.data();
        l.conv_bias = conv_bias.data();
        l.mixin = mixin.data();
        l.layer1x1 = layer1x1 ? w1x1.data() : nullptr;
        l.layer1x1_bias = layer1x1 ? b1x1.data() : nullptr;
        l.head1x1 = head1x1 ? wh.data() : nullptr;
        l.head1x1_bias = head1x1 ? bh.data() : nullptr;
        l.head_size = head_size;
        l.input = input.data() + history();
        l.input_stride = history() + frames;
        l.condition = cond.data();
        l.condition_stride = frames;
        l.z = z.data();
        l.next = next.data();
        l.next_stride = frames;
        l.head = head.data();
        l.head_stride = frames;
        l.frames = frames;
        return l;
    }
};

TEST(NamWaveNetLayer, ScalarMatchesHandComputedLayer) {
    // One channel, K = 2, dilation 3, identity activation: every sum is short enough to write out.
    LayerData d(1, 1, 1, 2, 3, 5, NamGating::None, true, false, 7);
    const auto head_before = d.head;
    scalar::nam_wavenet_layer(d.call(UnaryOp::Identity));
    for (std::int64_t t = 0; t < d.frames; ++t) {
        const float x_now = d.input[3 + t], x_past = d.input[t];
        const float z = d.conv_bias[0] + d.conv[0] * x_past + d.conv[1] * x_now + d.mixin[0] * d.cond[t];
        EXPECT_TRUE(close(d.z[t], z, 1e-6, 1e-7)) << t;
        EXPECT_TRUE(close(d.next[t], x_now + d.b1x1[0] + d.w1x1[0] * z, 1e-6, 1e-7)) << t;
        EXPECT_TRUE(close(d.head[t], head_before[t] + z, 1e-6, 1e-7)) << t;
    }
}

// next = nullptr (a residual nobody reads): the same head, bit for bit, and no next written.
void expect_head_without_next(void (*layer)(const NamWaveNetLayer&) noexcept, std::int64_t c, std::int64_t b,
                              std::int64_t t, NamGating g, bool with_head1x1) {
    const auto seed = static_cast<std::uint32_t>(c * 100 + t);
    LayerData with(c, b, 1, 3, 2, t, g, true, with_head1x1, seed);
    LayerData without(c, b, 1, 3, 2, t, g, true, with_head1x1, seed);
    layer(with.call(UnaryOp::Tanh));
    NamWaveNetLayer call = without.call(UnaryOp::Tanh);
    call.next = nullptr;
    layer(call);
    EXPECT_EQ(with.head, without.head) << "C " << c << " B " << b << " frames " << t;
    EXPECT_EQ(without.next, std::vector<float>(without.next.size(), 0.0f));
}

TEST(NamWaveNetLayer, WithoutNextTheHeadIsUnchanged) {
    std::vector<void (*)(const NamWaveNetLayer&) noexcept> backends{&scalar::nam_wavenet_layer};
#if defined(FORGE_BACKEND_SIMD)
    backends.push_back(&simd::nam_wavenet_layer);
#endif
    for (auto layer : backends) {
        for (std::int64_t frames : {15, 64, 100}) {
            expect_head_without_next(layer, 16, 16, frames, NamGating::None, false);  // one register tile
            expect_head_without_next(layer, 8, 8, frames, NamGating::None, true);
            expect_head_without_next(layer, 24, 24, frames, NamGating::Gated, true);  // several tiles
        }
    }
}

#if defined(FORGE_BACKEND_SIMD)
void expect_simd_matches_scalar(std::int64_t c, std::int64_t b, std::int64_t m, std::int64_t k, std::int64_t d,
                                std::int64_t t, NamGating g, bool with_1x1, bool with_head1x1, UnaryOp act) {
    const auto seed = static_cast<std::uint32_t>(c * 1000 + b * 100 + k * 10 + t);
    LayerData want(c, b, m, k, d, t, g, with_1x1, with_head1x1, seed);
    LayerData got(c, b, m, k, d, t, g, with_1x1, with_head1x1, seed);
    scalar::nam_wavenet_layer(want.call(act));
    simd::nam_wavenet_layer(got.call(act));
    const auto expect_close = [&](const std::vector<float>& x, const std::vector<float>& y, const char* what) {
        for (std::size_t i = 0; i < x.size(); ++i)
            ASSERT_TRUE(close(x[i], y[i], 1e-5, 1e-5))
                << what << " " << i << ": C " << c << " B " << b << " K " << k << " frames " << t << " gating "
                << static_cast<int>(g) << " 1x1 " << with_1x1 << " head1x1 " << with_head1x1;
    };
    // z is scratch (the simd kernel keeps it in registers when the layer fits one tile): the
    // outputs are next and head.
    expect_close(got.next, want.next, "next");
    expect_close(got.head, want.head, "head");
}

TEST(NamWaveNetLayerSimd, MatchesScalar) {
    for (std::int64_t channels : {1, 3, 8, 13, 16, 17, 24}) {
        for (std::int64_t frames : {1, 15, 16, 64, 100}) {
            for (NamGating g : {NamGating::None, NamGating::Gated, NamGating::Blended}) {
                expect_simd_matches_scalar(channels, channels, 1, 3, 4, frames, g, true, false, UnaryOp::Tanh);
            }
        }
    }
    expect_simd_matches_scalar(8, 4, 2, 6, 7, 64, NamGating::None, false, true, UnaryOp::LeakyRelu);
    expect_simd_matches_scalar(16, 16, 1, 15, 13, 33, NamGating::None, true, true, UnaryOp::Relu);
    expect_simd_matches_scalar(3, 2, 3, 1, 1, 64, NamGating::Gated, false, false, UnaryOp::Softsign);
    // Both halves in one register tile (rows <= 16) and spread over several (rows > 16).
    expect_simd_matches_scalar(12, 6, 1, 3, 2, 64, NamGating::Blended, true, true, UnaryOp::FastTanh);
    expect_simd_matches_scalar(10, 10, 2, 3, 5, 50, NamGating::Gated, true, true, UnaryOp::Silu);
}
#endif

}  // namespace
}  // namespace forge::kernels
