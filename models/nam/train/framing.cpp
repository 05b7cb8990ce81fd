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

// The source sample of padded position i: reflect at 0 and at t - 1.
std::int64_t reflected(std::int64_t i, std::int64_t t, std::int64_t pad) {
    std::int64_t j = i - pad;
    if (j < 0) j = -j;
    if (j >= t) j = 2 * (t - 1) - j;
    return j;
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

Tensor reflect_pad(const Tensor& x_in, std::int64_t pad) {
    check(x_in.rank() == 2 && x_in.dtype() == DType::F32, "reflect_pad: expected an f32 [batch, time] tensor");
    const Tensor x = x_in.contiguous();
    const std::int64_t b = x.size(0), t = x.size(1), n = t + 2 * pad;
    check(pad >= 0 && pad < t, "reflect_pad: padding {} must be below the length {}", pad, t);
    Tensor y = Tensor::empty({b, n});
    const float* in = x.data<float>();
    float* out = y.data<float>();
    for (std::int64_t i = 0; i < b; ++i)
        for (std::int64_t k = 0; k < n; ++k) out[i * n + k] = in[i * t + reflected(k, t, pad)];
    if (!ag::any_requires_grad({&x_in})) return y;
    return ag::record("reflect_pad", y, {&x_in}, [b, t, n, pad](const Tensor& g_in, ag::InputMask) {
        const Tensor g = g_in.contiguous();
        Tensor gx = Tensor::zeros({b, t});
        const float* gs = g.data<float>();
        float* out = gx.data<float>();
        for (std::int64_t i = 0; i < b; ++i)
            for (std::int64_t k = 0; k < n; ++k) out[i * t + reflected(k, t, pad)] += gs[i * n + k];
        return std::vector<Tensor>{gx};
    });
}

}  // namespace forge::nam::train
