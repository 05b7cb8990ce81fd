#include "core/autograd/ops/softmax.h"

#include "core/autograd/variable.h"
#include "core/ops/binary.h"
#include "core/ops/reduce.h"
#include "core/ops/softmax.h"
#include "core/ops/unary.h"

#include <vector>

namespace forge::ag {
namespace {

// 1 where query row i (of the last q of k positions) sees key j, else 0; shape [q, k].
Tensor causal_visibility(std::int64_t q, std::int64_t k) {
    Tensor mask = Tensor::zeros(Shape{q, k});
    float* m = mask.data<float>();
    for (std::int64_t i = 0; i < q; ++i) {
        for (std::int64_t j = 0; j <= i + (k - q) && j < k; ++j) m[i * k + j] = 1.0f;
    }
    return mask;
}

}  // namespace

Tensor softmax(const Tensor& x, float scale, bool causal) {
    Tensor y = forge::softmax(x, scale, causal);
    if (!any_requires_grad({&x})) return y;
    return record("softmax", y, {&x}, [y = detach(y), scale](const Tensor& g, InputMask) {
        // dx = scale * y * (g - sum(g * y)); masked entries have y = 0 and so get 0.
        const Tensor dot = forge::sum(forge::mul(g, y), -1, true);
        return std::vector<Tensor>{forge::operator*(forge::mul(y, forge::sub(g, dot)), scale)};
    });
}

Tensor log_softmax(const Tensor& x, float scale, bool causal) {
    Tensor y = forge::log_softmax(x, scale, causal);
    if (!any_requires_grad({&x})) return y;
    return record("log_softmax", y, {&x}, [y = detach(y), scale, causal](const Tensor& g, InputMask) {
        // dx = scale * (g - softmax * sum(g)), over the visible entries only.
        Tensor visible_g = g;
        if (causal) visible_g = forge::mul(g, causal_visibility(y.size(-2), y.size(-1)));
        const Tensor total = forge::sum(visible_g, -1, true);
        const Tensor dx = forge::sub(visible_g, forge::mul(forge::exp(y), total));
        return std::vector<Tensor>{forge::operator*(dx, scale)};
    });
}

}  // namespace forge::ag
