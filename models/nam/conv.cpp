#include "models/nam/conv.h"

#include "core/checked_math.h"
#include "core/error.h"

#include <algorithm>
#include <cstring>

namespace forge::nam {
namespace {

infer::Conv1dWeights kernel_weights(const ConvWeights& w) {
    const ConvShape& s = w.shape();
    return {w.weight(), w.bias(), s.in_channels, s.out_channels, s.kernel_size, s.dilation, s.groups};
}

// `in` is frame 0 of the block, its history in the columns before it.
void convolve(const ConvWeights& w, ConstSignal in, Signal out, int frames) noexcept {
    infer::causal_conv1d(kernel_weights(w), in.data, in.stride, out.data, out.stride, frames);
}

}  // namespace

ConvWeights::ConvWeights(const ConvShape& shape, WeightCursor& weights, std::string_view what) : shape_(shape) {
    const auto& s = shape;
    if (s.in_channels <= 0 || s.out_channels <= 0 || s.kernel_size <= 0 || s.dilation <= 0 || s.groups <= 0 ||
        s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0)
        fail_format("{}: config: {} has an invalid shape (in {}, out {}, kernel {}, dilation {}, "
                    "groups {}; channels must divide by groups)",
                    weights.source(), what, s.in_channels, s.out_channels, s.kernel_size,
                    s.dilation, s.groups);
    // In 64 bits with overflow checks: each factor comes from the file and may be near INT_MAX.
    const auto n = checked_mul(std::int64_t{s.out_channels} * (s.in_channels / s.groups), s.kernel_size);
    const auto history = checked_mul(s.kernel_size - std::int64_t{1}, s.dilation);
    if (!history || *history > kMaxHistoryFrames)
        fail_format("{}: config: {} looks back (kernel {} - 1) x dilation {} frames, more than the "
                    "{} a model may (real models look back under 10 000)",
                    weights.source(), what, s.kernel_size, s.dilation, kMaxHistoryFrames);
    const auto w = weights.take(n ? static_cast<std::size_t>(*n) : SIZE_MAX, what);
    weight_.assign(w.begin(), w.end());
    if (s.bias) {
        const auto b = weights.take(static_cast<std::size_t>(s.out_channels), what);
        bias_.assign(b.begin(), b.end());
    }
}

ConvShape pointwise(ConvShape shape) {
    shape.kernel_size = 1;
    shape.dilation = 1;
    return shape;
}

Conv1x1::Conv1x1(ConvShape shape, WeightCursor& weights, std::string_view what)
    : w_(pointwise(shape), weights, what) {}

void Conv1x1::process(ConstSignal in, Signal out, int frames) const noexcept {
    convolve(w_, in, out, frames);
}

CausalConv::CausalConv(ConvShape shape, WeightCursor& weights, std::string_view what) : w_(shape, weights, what) {}

void CausalConv::prepare(int max_frames) {
    // Room for the history plus at least eight blocks (and at least the history again), so
    // the rewind's copy of history() frames happens at most once per eight blocks.
    const std::int64_t extra = std::max<std::int64_t>(8 * max_frames, history());
    line_.resize(in_channels(), history() + extra);
    write_ = history();
}

Signal CausalConv::input_block(int frames) noexcept {
    const std::int64_t h = history();
    if (write_ + frames > line_.capacity()) {
        for (std::int64_t c = 0; c < in_channels(); ++c) {
            float* row = line_.signal().row(c);
            std::memmove(row, row + write_ - h, static_cast<std::size_t>(h) * sizeof(float));
        }
        write_ = h;
    }
    const Signal line = line_.signal();
    return {line.data + write_, line.stride};
}

ConstSignal CausalConv::window() const {
    const ConstSignal line = line_.signal();
    return {line.data + write_, line.stride};
}

void CausalConv::process(ConstSignal in, Signal out, int frames) noexcept {
    const Signal block = input_block(frames);
    for (std::int64_t c = 0; c < in_channels(); ++c)
        std::memcpy(block.row(c), in.row(c), static_cast<std::size_t>(frames) * sizeof(float));
    convolve(w_, block, out, frames);
    advance(frames);
}

}  // namespace forge::nam
