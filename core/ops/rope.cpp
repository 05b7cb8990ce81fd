#include "core/ops/rope.h"

#include "core/ops/check_f32.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"

#include <vector>

namespace forge {
namespace {

constexpr std::int64_t kElementGrain = 1 << 16;

// x as [batch, seq, heads * head_dim] and where each (batch, seq) entry's position lives.
struct RopeShape {
    std::int64_t batch, seq, heads, head_dim;
    bool positions_per_batch;  // positions is [batch, seq] rather than [seq]
};

RopeShape check_shapes(const Tensor& x, const Tensor& positions) {
    check_f32(x, "rope");
    check(x.rank() == 3 || x.rank() == 4, "rope: x must be [seq, heads, head_dim] or [batch, seq, heads, head_dim], got {}",
          x.shape().to_string());
    check(positions.defined(), "rope: positions is an undefined tensor");
    check(positions.dtype() == DType::I32 || positions.dtype() == DType::I64, "rope: positions must be i32 or i64, got {}",
          dtype_name(positions.dtype()));
    const bool batched = x.rank() == 4;
    RopeShape s{batched ? x.size(0) : 1, x.size(-3), x.size(-2), x.size(-1), false};
    const bool shared = positions.rank() == 1 && positions.size(0) == s.seq;
    s.positions_per_batch = batched && positions.rank() == 2 && positions.size(0) == s.batch && positions.size(1) == s.seq;
    check(shared || s.positions_per_batch, "rope: positions must have shape [{}]{}, got {} (x has shape {})", s.seq,
          batched ? fmt::format(" or [{}, {}]", s.batch, s.seq) : "", positions.shape().to_string(), x.shape().to_string());
    return s;
}

std::int64_t rotated_dims(const RopeConfig& config, std::int64_t head_dim) {
    const std::int64_t n_rot = config.n_rot == 0 ? head_dim : config.n_rot;
    check(n_rot > 0 && n_rot % 2 == 0 && n_rot <= head_dim, "rope: n_rot must be even and in [2, head_dim = {}], got {}",
          head_dim, n_rot);
    check(config.theta_base > 0.0f, "rope: theta_base must be positive, got {}", config.theta_base);
    return n_rot;
}

// Positions as doubles, one per (batch, seq) entry.
std::vector<double> positions_of(const Tensor& positions, const RopeShape& s) {
    const Tensor p = positions.contiguous();
    std::vector<double> out(static_cast<std::size_t>(s.batch * s.seq));
    for (std::int64_t entry = 0; entry < s.batch * s.seq; ++entry) {
        const std::int64_t at = s.positions_per_batch ? entry : entry % s.seq;
        out[static_cast<std::size_t>(entry)] =
            p.dtype() == DType::I32 ? static_cast<double>(p.data<std::int32_t>()[at])
                                    : static_cast<double>(p.data<std::int64_t>()[at]);
    }
    return out;
}

}  // namespace

Tensor rope(const Tensor& x, const Tensor& positions, const RopeConfig& config) {
    const RopeShape s = check_shapes(x, positions);
    const std::int64_t n_rot = rotated_dims(config, s.head_dim);
    const std::vector<double> position = positions_of(positions, s);
    const Tensor in = x.contiguous();
    Tensor out = Tensor::empty(x.shape());
    if (x.numel() == 0) return out;

    const std::int64_t entry_size = s.heads * s.head_dim;  // all heads at one position
    const float* src = in.data<float>();
    float* dst = out.data<float>();
    const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / entry_size);
    ThreadPool::global().parallel_for(s.batch * s.seq, grain, [&](std::int64_t begin, std::int64_t end) {
        std::vector<float> cos(static_cast<std::size_t>(n_rot / 2)), sin(cos.size());
        for (std::int64_t entry = begin; entry < end; ++entry) {
            kernels::active::rope_angles(position[static_cast<std::size_t>(entry)], config.theta_base, config.freq_scale,
                                         cos, sin);
            // The inverse rotation is the rotation by -theta: sin changes sign, cos does not.
            if (config.inverse) for (float& v : sin) v = -v;
            kernels::active::rope({src + entry * entry_size, static_cast<std::size_t>(entry_size)}, s.head_dim,
                                  config.mode, {cos, sin}, {dst + entry * entry_size, static_cast<std::size_t>(entry_size)});
        }
    });
    return out;
}

}  // namespace forge
