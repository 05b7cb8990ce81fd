#include "core/autograd/ops/recompute.h"

#include "core/autograd/autocast.h"
#include "core/autograd/backward.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/variable.h"

namespace forge::ag {

Tensor recompute(const Segment& f, std::vector<Tensor> inputs) {
    Tensor y;
    {
        NoGradScope no_grad;
        y = f(inputs);
    }
    const bool wanted_any =
        grad_enabled() && std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return requires_grad_of(t); });
    if (!wanted_any) return y;
    std::vector<Tensor> saved;
    for (const Tensor& t : inputs) saved.push_back(detach(t));
    // The rerun in the forward's precision, on whichever thread runs the backward.
    const MatmulPrecision precision = autocast_precision();
    return record("recompute", y, std::span<const Tensor>(inputs), [f, saved, precision](const Tensor& g, InputMask wanted) {
        // Each input again as a fresh leaf (its own gradient, apart from the original's).
        GradModeScope recording(true);
        AutocastScope autocast(precision);
        std::vector<Tensor> leaves;
        bool any = false;
        for (std::size_t i = 0; i < saved.size(); ++i) {
            const bool want = wanted[i] && saved[i].dtype() == DType::F32;
            leaves.push_back(want ? requires_grad(detach(saved[i])) : saved[i]);
            any = any || want;
        }
        std::vector<Tensor> grads(saved.size());
        if (!any) return grads;
        backward(f(leaves), g);
        for (std::size_t i = 0; i < saved.size(); ++i) {
            if (wanted[i] && requires_grad_of(leaves[i])) grads[i] = grad(leaves[i]);
        }
        return grads;
    });
}

}  // namespace forge::ag
