#include "core/infer/lstm_cell.h"

#include "kernels/backend.h"
#include "kernels/lstm_cell.h"

namespace forge::infer {

void lstm_cell(std::span<float> gates, std::span<float> c, std::span<float> h, bool fast) noexcept {
    kernels::active::lstm_cell(gates, c, h, fast);
}

}  // namespace forge::infer
