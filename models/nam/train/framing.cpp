#include "models/nam/train/framing.h"

#include "core/autograd/variable.h"
#include "core/error.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace forge::nam::train {
namespace {

std::int64_t frame_count(std::int64_t t, std::int64_t length, std::int64_t hop) { return 1 + (t - length) / hop; }

Tensor cut(const Tensor& x, std::int64_t length, std::int64_t hop) {
    const std::int64_t b = x.size(0), t = x.size(1), f = frame_count(t, length, hop);
    Tensor y = Tensor::empty({b, f, length});
    const float* in = x.data<float>();
    float* out = y.data<float>();
    for (std::int64_t i = 0; i < b; ++i)
        for (std::int64_t j = 0; j < f; ++j)
            std::memcpy(out + (i * f + j) * length, in + i * t + j * hop, static_cast<std::size_t>(length) * sizeof(float));
    return y;
}

Tensor overlap_add(const Tensor& g, std::int64_t t, std::int64_t hop) {
    const Tensor frames = g.contiguous();
    const std::int64_t b = frames.size(0), f = frames.size(1), length = frames.size(2);
    Tensor x = Tensor::zeros({b, t});
    const float* in = frames.data<float>();
    float* out = x.data<float>();
    for (std::int64_t i = 0; i < b; ++i)
        for (std::int64_t j = 0; j < f; ++j) {
            const float* src = in + (i * f + j) * length;
            float* dst = out + i * t + j * hop;
            for (std::int64_t k = 0; k < length; ++k) dst[k] += src[k];
        }
    return x;
}

}  // namespace

Tensor frame(const Tensor& x_in, std::int64_t length, std::int64_t hop) {
    check(x_in.rank() == 2 && x_in.dtype() == DType::F32, "frame: expected an f32 [batch, time] tensor");
    check(length > 0 && hop > 0, "frame: length {} and hop {} must be positive", length, hop);
    check(x_in.size(1) >= length, "frame: {} samples is shorter than one frame of {}", x_in.size(1), length);
    const Tensor x = x_in.contiguous();
    Tensor y = cut(x, length, hop);
    if (!ag::any_requires_grad({&x_in})) return y;
    const std::int64_t t = x.size(1);
    return ag::record("frame", y, {&x_in}, [t, hop](const Tensor& g, ag::InputMask) {
        return std::vector<Tensor>{overlap_add(g, t, hop)};
    });
}

}  // namespace forge::nam::train
