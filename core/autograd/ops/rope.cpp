#include "core/autograd/ops/rope.h"

#include "core/autograd/variable.h"

#include <vector>

namespace forge::ag {

Tensor rope(const Tensor& x, const Tensor& positions, const RopeConfig& config) {
    Tensor y = forge::rope(x, positions, config);
    if (!any_requires_grad({&x})) return y;
    return record("rope", y, {&x, &positions}, [positions = detach(positions), config](const Tensor& g, InputMask) {
        RopeConfig transposed = config;
        transposed.inverse = !config.inverse;
        return std::vector<Tensor>{forge::rope(g, positions, transposed), Tensor{}};
    });
}

}  // namespace forge::ag
