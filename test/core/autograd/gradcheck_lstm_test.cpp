// gradcheck of the LSTM sequence op (core/autograd/ops/lstm.h) through every operand, with
// gradients arriving at both the hidden and the cell states; and its forward against a plain
// step-by-step transcription of the cell equations.
#include "core/autograd/ops/lstm.h"
#include "test/core/autograd/test_util.h"

namespace forge::ag {
namespace {

using testing::param;
using testing::passes_gradcheck;

TEST(GradcheckLstm, EveryOperandThroughTime) {
    const std::int64_t batch = 2, steps = 5, input = 2, hidden = 3;
    EXPECT_TRUE(passes_gradcheck(
        [](std::span<const Tensor> in) { return ag::lstm_sequence(in[0], in[1], in[2], in[3], in[4]); },
        {param({batch, steps, input}, 1), param({4 * hidden, input + hidden}, 2), param({4 * hidden}, 3),
         param({batch, hidden}, 4), param({batch, hidden}, 5)}));
}

TEST(GradcheckLstm, ChainedChunksTrainThroughTheCarriedState) {
    // Two chunks, the second starting from the first's last h and c (truncated BPTT without
    // the detach): the gradient reaches the first chunk only through the carried state.
    const std::int64_t hidden = 2;
    EXPECT_TRUE(passes_gradcheck(
        [](std::span<const Tensor> in) {
            const Tensor first = ag::lstm_sequence(ag::narrow(in[0], 1, 0, 3), in[1], in[2], in[3], in[4]);
            const Tensor last = ag::squeeze(ag::narrow(first, 1, 2, 1), 1);
            return ag::lstm_sequence(ag::narrow(in[0], 1, 3, 3), in[1], in[2], ag::narrow(last, 1, 0, hidden),
                                     ag::narrow(last, 1, hidden, hidden));
        },
        {param({1, 6, 1}, 6), param({4 * hidden, 1 + hidden}, 7), param({4 * hidden}, 8), param({1, hidden}, 9),
         param({1, hidden}, 10)}));
}

float sigmoid(float z) { return 1.0f / (1.0f + std::exp(-z)); }

TEST(LstmSequence, ForwardMatchesTheCellEquations) {
    const std::int64_t batch = 3, steps = 7, input = 2, hidden = 4, cols = input + hidden;
    const Tensor x = detach(param({batch, steps, input}, 11)), w = detach(param({4 * hidden, cols}, 12));
    const Tensor b = detach(param({4 * hidden}, 13)), h0 = detach(param({batch, hidden}, 14));
    const Tensor c0 = detach(param({batch, hidden}, 15));
    const auto states = ag::lstm_sequence(x, w, b, h0, c0).to_vector();
    const auto xs = x.to_vector(), ws = w.to_vector(), bs = b.to_vector();
    const auto h0s = h0.to_vector(), c0s = c0.to_vector();  // one vector each: iterators of one range
    for (std::int64_t i = 0; i < batch; ++i) {
        std::vector<float> h(h0s.begin() + i * hidden, h0s.begin() + (i + 1) * hidden);
        std::vector<float> c(c0s.begin() + i * hidden, c0s.begin() + (i + 1) * hidden);
        for (std::int64_t t = 0; t < steps; ++t) {
            std::vector<float> xh(xs.begin() + (i * steps + t) * input, xs.begin() + (i * steps + t + 1) * input);
            xh.insert(xh.end(), h.begin(), h.end());
            std::vector<float> z(4 * hidden);
            for (std::int64_t r = 0; r < 4 * hidden; ++r) {
                double sum = 0.0;
                for (std::int64_t j = 0; j < cols; ++j) sum += static_cast<double>(ws[r * cols + j]) * xh[j];
                z[r] = static_cast<float>(sum) + bs[r];
            }
            for (std::int64_t k = 0; k < hidden; ++k) {
                c[k] = sigmoid(z[hidden + k]) * c[k] + sigmoid(z[k]) * std::tanh(z[2 * hidden + k]);
                h[k] = sigmoid(z[3 * hidden + k]) * std::tanh(c[k]);
                const std::int64_t at = (i * steps + t) * 2 * hidden;
                EXPECT_NEAR(states[at + k], h[k], 1e-6f) << i << " " << t << " " << k;
                EXPECT_NEAR(states[at + hidden + k], c[k], 1e-6f) << i << " " << t << " " << k;
            }
        }
    }
}

}  // namespace
}  // namespace forge::ag
