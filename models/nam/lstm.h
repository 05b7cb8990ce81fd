// The LSTM architecture of NAM (Core: NAM/lstm.cpp): stacked LSTM cells run one sample at a
// time, then a linear head on the last hidden state. Per cell the weights are W
// (4H × (I+H), row-major, acting on [x, h]), b (4H), then the initial h and c; gate order
// i, f, g, o. After all cells: head weight (out × H), head bias (out).
#pragma once

#include "models/nam/activation.h"
#include "models/nam/model.h"
#include "models/nam/weight_cursor.h"

#include <vector>

namespace forge::nam {

struct LstmConfig {
    int num_layers = 1;
    int input_size = 1;
    int hidden_size = 1;
    int in_channels = 1;
    int out_channels = 1;
};

LstmConfig parse_lstm_config(const JsonReader& config);

class Lstm final : public Model {
public:
    Lstm(const LstmConfig& config, std::span<const float> weights, const std::string& source, double sample_rate,
         const LoadOptions& options);

    int in_channels() const override { return config_.in_channels; }
    int out_channels() const override { return config_.out_channels; }
    void prepare(int max_frames) override;
    void process(ConstSignal in, Signal out, int frames) noexcept override;
    long prewarm_samples() const override;
    std::string describe() const override;

private:
    struct Cell {
        int input_size;
        std::vector<float> w, b, h0, c0;  // parameters
        std::vector<float> xh, c, gates;   // state and scratch: xh = [x, h]
    };
    void step(Cell& cell, const float* x) noexcept;

    LstmConfig config_;
    double sample_rate_;
    bool fast_;
    std::vector<Cell> cells_;
    std::vector<float> head_w_, head_b_, input_;
};

}  // namespace forge::nam
