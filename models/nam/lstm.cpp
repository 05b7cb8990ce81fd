#include "models/nam/lstm.h"

#include "core/infer/lstm_cell.h"

#include <fmt/format.h>

namespace forge::nam {
namespace {

std::vector<float> read(WeightCursor& weights, std::size_t n, std::string_view what) {
    const auto w = weights.take(n, what);
    return {w.begin(), w.end()};
}

}  // namespace

LstmConfig parse_lstm_config(const JsonReader& config) {
    LstmConfig c;
    c.num_layers = config.integer("num_layers");
    c.input_size = config.integer("input_size");
    c.hidden_size = config.integer("hidden_size");
    c.in_channels = config.integer_or("in_channels", 1);
    c.out_channels = config.integer_or("out_channels", 1);
    if (c.num_layers < 0 || c.hidden_size < 1 || c.input_size < 1 || c.out_channels < 1)
        config.fail("num_layers, input_size, hidden_size and out_channels must be positive");
    // Weight counts are products of these (4 h (i + h)): bounded so that they cannot wrap.
    // Real models use hidden sizes of 8 to 32.
    if (c.hidden_size > 65536 || c.input_size > 65536 || c.out_channels > 65536)
        config.fail("hidden_size, input_size and out_channels must be at most 65536");
    if (c.input_size != c.in_channels)
        config.fail_field("input_size", fmt::format("is {} but the model has {} input channel(s)", c.input_size,
                                                    c.in_channels));
    return c;
}

Lstm::Lstm(const LstmConfig& config, std::span<const float> weights, const std::string& source, double sample_rate,
           const LoadOptions& options)
    : config_(config), sample_rate_(sample_rate), fast_(options.fast_tanh) {
    WeightCursor cursor(weights, source);
    const auto h = static_cast<std::size_t>(config.hidden_size);
    for (int l = 0; l < config.num_layers; ++l) {
        Cell cell;
        cell.input_size = l == 0 ? config.input_size : config.hidden_size;
        const std::string what = fmt::format("LSTM layer {}", l);
        cell.w = read(cursor, 4 * h * (cell.input_size + h), what + " W");
        cell.b = read(cursor, 4 * h, what + " bias");
        cell.h0 = read(cursor, h, what + " initial h");
        cell.c0 = read(cursor, h, what + " initial c");
        cells_.push_back(std::move(cell));
    }
    head_w_ = read(cursor, static_cast<std::size_t>(config.out_channels) * h, "LSTM head weight");
    head_b_ = read(cursor, static_cast<std::size_t>(config.out_channels), "LSTM head bias");
    cursor.expect_end();  // Core only asserts this (not checked in release builds)
}

void Lstm::prepare(int /*max_frames*/) {
    input_.assign(static_cast<std::size_t>(config_.in_channels), 0.0f);
    for (auto& cell : cells_) {
        cell.xh.assign(cell.input_size, 0.0f);
        cell.xh.insert(cell.xh.end(), cell.h0.begin(), cell.h0.end());
        cell.c = cell.c0;
        cell.gates.assign(cell.b.size(), 0.0f);
    }
}

void Lstm::step(Cell& cell, const float* x) noexcept {
    const int h = config_.hidden_size;
    const int cols = cell.input_size + h;
    std::copy(x, x + cell.input_size, cell.xh.begin());
    for (int r = 0; r < 4 * h; ++r) {
        const float* w = cell.w.data() + static_cast<std::size_t>(r) * cols;
        float sum = 0.0f;
        for (int j = 0; j < cols; ++j) sum += w[j] * cell.xh[j];
        cell.gates[r] = sum + cell.b[r];
    }
    // The new hidden state goes straight into [x, h] for the next step (and the next layer).
    infer::lstm_cell(cell.gates, cell.c, {cell.xh.data() + cell.input_size, static_cast<std::size_t>(h)}, fast_);
}

void Lstm::process(ConstSignal in, Signal out, int frames) noexcept {
    const int h = config_.hidden_size;
    for (int t = 0; t < frames; ++t) {
        for (int c = 0; c < config_.in_channels; ++c) input_[c] = in.row(c)[t];
        const float* x = input_.data();
        for (auto& cell : cells_) {
            step(cell, x);
            x = cell.xh.data() + cell.input_size;
        }
        for (int o = 0; o < config_.out_channels; ++o) {
            float sum = 0.0f;
            if (cells_.empty()) {
                sum = o < config_.in_channels ? input_[o] : 0.0f;  // Core: no layers passes through
            } else {
                for (int k = 0; k < h; ++k) sum += head_w_[static_cast<std::size_t>(o) * h + k] * x[k];
                sum += head_b_[o];
            }
            out.row(o)[t] = sum;
        }
    }
}

// Core: half a second of zeros at the model's rate (at least one sample).
long Lstm::prewarm_samples() const {
    const long n = static_cast<long>(0.5 * sample_rate_);
    return n <= 0 ? 1 : n;
}

std::string Lstm::describe() const {
    return fmt::format("LSTM: {} layer(s), hidden size {}", config_.num_layers, config_.hidden_size);
}

}  // namespace forge::nam
