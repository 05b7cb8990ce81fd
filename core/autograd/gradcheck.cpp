#include "core/autograd/gradcheck.h"

#include "core/autograd/backward.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/reduce.h"
#include "core/autograd/variable.h"
#include "core/error.h"
#include "core/random/random_tensor.h"

#include <fmt/format.h>

#include <cmath>

namespace forge::ag {
namespace {

// L = Σ w ⊙ y in double, for the numeric side.
double weighted_sum(const Tensor& y, const Tensor& w) {
    const auto ys = y.to_vector(), ws = w.to_vector();
    double total = 0.0;
    for (std::size_t i = 0; i < ys.size(); ++i) total += static_cast<double>(ws[i]) * ys[i];
    return total;
}

double evaluate(const DifferentiableFunction& f, std::span<const Tensor> inputs, const Tensor& w) {
    NoGradScope no_grad;
    return weighted_sum(f(inputs), w);
}

// Central difference of L along element `element` of input `which` (modified in place and
// restored; the caller owns private copies of the inputs).
double numeric_derivative(const DifferentiableFunction& f, std::vector<Tensor>& inputs, std::size_t which,
                          std::int64_t element, const Tensor& w, double eps) {
    float* x = inputs[which].data<float>() + element;
    const float original = *x;
    const float up = static_cast<float>(original + eps), down = static_cast<float>(original - eps);
    *x = up;
    const double l_up = evaluate(f, inputs, w);
    *x = down;
    const double l_down = evaluate(f, inputs, w);
    *x = original;
    return (l_up - l_down) / (static_cast<double>(up) - static_cast<double>(down));
}

}  // namespace

GradcheckResult gradcheck(const DifferentiableFunction& f, std::vector<Tensor> inputs, const GradcheckOptions& options) {
    // Private contiguous copies, so perturbing them cannot touch the caller's tensors.
    for (Tensor& input : inputs) {
        const bool checked = requires_grad_of(input);
        input = input.clone();
        if (checked) input = requires_grad(input);
    }
    GradModeScope recording(true);
    const Tensor y = f(inputs);
    const Tensor w = random::uniform_tensor(y.shape(), options.seed, -1.0f, 1.0f);
    backward(ag::sum_all(ag::mul(y, w)));

    GradcheckResult result;
    int reported = 0;
    for (std::size_t which = 0; which < inputs.size(); ++which) {
        if (!requires_grad_of(inputs[which])) continue;
        const Tensor analytic_tensor = grad(inputs[which]);
        const std::vector<float> analytic = analytic_tensor.defined()
                                                ? analytic_tensor.to_vector()
                                                : std::vector<float>(static_cast<std::size_t>(inputs[which].numel()), 0.0f);
        for (std::int64_t e = 0; e < inputs[which].numel(); ++e) {
            const double numeric = numeric_derivative(f, inputs, which, e, w, options.eps);
            const double a = analytic[static_cast<std::size_t>(e)];
            const double excess = std::fabs(a - numeric) - options.rtol * std::fabs(numeric);
            result.worst_error = std::max(result.worst_error, excess);
            if (!(excess <= options.atol)) {  // also catches NaN
                result.ok = false;
                if (reported++ < 8) {
                    result.report += fmt::format("input {} element {}: analytic {:.7g}, numeric {:.7g}\n", which, e, a,
                                                 numeric);
                }
            }
        }
    }
    return result;
}

}  // namespace forge::ag
