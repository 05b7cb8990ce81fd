// The MXFP4 dot product, the specification (see kernels/quant_dot.h): written after
// ggml's ggml_vec_dot_mxfp4_q8_0 (ggml-cpu/quants.c, MIT).
#include "kernels/quant_dot.h"

namespace forge::kernels::scalar {

float dot(std::span<const BlockMXFP4> w, std::span<const BlockQ8_0> a) noexcept {
    float sum = 0.0f;
    for (std::size_t i = 0; i < w.size(); ++i) {
        int isum = 0;
        for (std::size_t j = 0; j < 16; ++j) {
            isum += kMxfp4Values[w[i].qs[j] & 0xF] * a[i].qs[j];
            isum += kMxfp4Values[w[i].qs[j] >> 4] * a[i].qs[j + 16];
        }
        sum += e8m0_to_f32_half(w[i].e) * f16_to_f32(a[i].d) * static_cast<float>(isum);
    }
    return sum;
}

}  // namespace forge::kernels::scalar
