// The two convolutions NAM models are made of, both over channel-major blocks:
//
// - Conv1x1: a pointwise (kernel size 1) convolution, optionally grouped, optionally biased.
// - CausalConv: a dilated causal convolution that streams: it keeps the last
//   (K-1)·dilation input frames of the previous blocks, so a block's output is exactly what
//   one long convolution over the whole stream would give. Tap k reads x[t - (K-1-k)·d]:
//   the last tap is the current frame (PyTorch Conv1d layout, as Core's Conv1D).
//
// Weights come from the .nam list in Core's order: [out][in/groups][K], then out biases.
// Both run the project's conv1d kernel; neither allocates after prepare().
#pragma once

#include "core/infer/causal_conv1d.h"
#include "models/nam/signal.h"
#include "models/nam/weight_cursor.h"

#include <cstdint>
#include <vector>

namespace forge::nam {

// The longest look-back of one convolution, in frames (22 s at 48 kHz): a bound on the
// history a file can make forge allocate and prewarm.
inline constexpr std::int64_t kMaxHistoryFrames = std::int64_t{1} << 20;

struct ConvShape {
    int in_channels;
    int out_channels;
    int kernel_size = 1;
    int dilation = 1;
    int groups = 1;
    bool bias = false;
};

// Checks the shape (channels divisible by groups, sizes positive) and reads its weights.
class ConvWeights {
public:
    ConvWeights(const ConvShape& shape, WeightCursor& weights, std::string_view what);
    const ConvShape& shape() const { return shape_; }
    const float* weight() const { return weight_.data(); }
    const float* bias() const { return bias_.empty() ? nullptr : bias_.data(); }
    std::size_t count() const { return weight_.size() + bias_.size(); }

private:
    ConvShape shape_;
    std::vector<float> weight_;
    std::vector<float> bias_;
};

class Conv1x1 {
public:
    Conv1x1(ConvShape shape, WeightCursor& weights, std::string_view what);
    // out[o, t] = bias[o] + Σ w[o, c] in[c, t] for t < frames. out must not alias in.
    void process(ConstSignal in, Signal out, int frames) const noexcept;
    int in_channels() const { return w_.shape().in_channels; }
    int out_channels() const { return w_.shape().out_channels; }
    const ConvWeights& weights() const { return w_; }

private:
    ConvWeights w_;
};

class CausalConv {
public:
    CausalConv(ConvShape shape, WeightCursor& weights, std::string_view what);
    void prepare(int max_frames);  // sizes the history buffer and clears it
    void process(ConstSignal in, Signal out, int frames) noexcept;

    // The same in three steps, for a caller that writes the block straight into the line (the
    // previous WaveNet layer) and runs its own kernel on it: input_block() makes room and
    // says where the block goes; window() is the block with the history at negative columns;
    // advance() moves past the block.
    Signal input_block(int frames) noexcept;
    ConstSignal window() const;
    void advance(int frames) noexcept { write_ += frames; }

    // At most kMaxHistoryFrames: checked when the weights are read.
    int history() const { return (w_.shape().kernel_size - 1) * w_.shape().dilation; }
    int in_channels() const { return w_.shape().in_channels; }
    int out_channels() const { return w_.shape().out_channels; }
    int kernel_size() const { return w_.shape().kernel_size; }
    int dilation() const { return w_.shape().dilation; }
    const ConvWeights& weights() const { return w_; }

private:
    ConvWeights w_;
    // Input frames in a line buffer that is rewound (the last history() frames copied to the
    // front) only when full, so the copy is paid once every many blocks, not per block.
    SignalBuffer line_;
    std::int64_t write_ = 0;  // column where the next block's first frame goes
};

}  // namespace forge::nam
