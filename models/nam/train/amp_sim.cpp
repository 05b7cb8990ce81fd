#include "models/nam/train/amp_sim.h"

#include <cmath>
#include <numbers>

namespace forge::nam::train {
namespace {

// A biquad in direct form I with the RBJ Audio EQ Cookbook's designs.
class Biquad {
public:
    static Biquad peaking(double rate, double freq, double q, double gain_db) {
        const double a = std::pow(10.0, gain_db / 40.0), w = omega(rate, freq), alpha = std::sin(w) / (2.0 * q);
        return {1 + alpha * a, -2 * std::cos(w), 1 - alpha * a, 1 + alpha / a, -2 * std::cos(w), 1 - alpha / a};
    }
    static Biquad shelf(double rate, double freq, double gain_db, bool high) {
        const double a = std::pow(10.0, gain_db / 40.0), w = omega(rate, freq), c = std::cos(w);
        const double alpha = std::sin(w) / 2.0 * std::sqrt(2.0), s = 2.0 * std::sqrt(a) * alpha;
        const double sign = high ? -1.0 : 1.0;  // the high shelf is the low shelf with cos(w) negated
        return {a * ((a + 1) - sign * (a - 1) * c + s), sign * 2 * a * ((a - 1) - sign * (a + 1) * c),
                a * ((a + 1) - sign * (a - 1) * c - s), (a + 1) + sign * (a - 1) * c + s,
                -sign * 2 * ((a - 1) + sign * (a + 1) * c), (a + 1) + sign * (a - 1) * c - s};
    }
    static Biquad pass(double rate, double freq, bool high) {
        const double w = omega(rate, freq), c = std::cos(w), alpha = std::sin(w) / std::numbers::sqrt2;  // Q = 1/√2
        const double b1 = high ? -(1 + c) : 1 - c, b0 = high ? (1 + c) / 2 : (1 - c) / 2;
        return {b0, b1, b0, 1 + alpha, -2 * c, 1 - alpha};
    }

    double operator()(double x) {
        const double y = b0_ * x + b1_ * x1_ + b2_ * x2_ - a1_ * y1_ - a2_ * y2_;
        x2_ = x1_, x1_ = x, y2_ = y1_, y1_ = y;
        return y;
    }

private:
    Biquad(double b0, double b1, double b2, double a0, double a1, double a2)
        : b0_(b0 / a0), b1_(b1 / a0), b2_(b2 / a0), a1_(a1 / a0), a2_(a2 / a0) {}
    static double omega(double rate, double freq) { return 2.0 * std::numbers::pi * freq / rate; }

    double b0_, b1_, b2_, a1_, a2_;
    double x1_ = 0, x2_ = 0, y1_ = 0, y2_ = 0;
};

}  // namespace

std::vector<float> simulate_amp(std::span<const float> input, const AmpSimOptions& o) {
    const double r = o.sample_rate;
    Biquad pre_hp = Biquad::pass(r, 120.0, true), pre_mid = Biquad::peaking(r, 800.0, 0.7, 6.0);
    Biquad bass = Biquad::shelf(r, 120.0, 3.0, false), mid = Biquad::peaking(r, 600.0, 0.8, -5.0),
           treble = Biquad::shelf(r, 3000.0, -4.0, true), speaker = Biquad::pass(r, 5000.0, false);
    const double offset = std::tanh(o.bias);
    std::vector<float> out(input.size(), 0.0f);
    for (std::size_t i = 0; i < input.size(); ++i) {
        const double pre = pre_mid(pre_hp(input[i]));
        const double shaped = std::tanh(o.drive * pre + o.bias) - offset;
        const double toned = speaker(treble(mid(bass(shaped))));
        const std::size_t at = i + static_cast<std::size_t>(o.latency);
        if (at < out.size()) out[at] = static_cast<float>(o.output_level * toned);
    }
    return out;
}

}  // namespace forge::nam::train
