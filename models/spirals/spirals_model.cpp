#include "models/spirals/spirals_model.h"

#include "core/random/counter_rng.h"
#include "core/random/random_tensor.h"

#include <cmath>

namespace forge::spirals {
namespace {

Tensor uniform_init(const Shape& shape, std::int64_t fan_in, std::uint64_t seed, std::uint64_t which) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
    return random::uniform_tensor(shape, random::stream_key(seed, 0x1417, which), -bound, bound);
}

}  // namespace

SpiralsMlp SpiralsMlp::init(std::int64_t hidden, std::uint64_t seed) {
    constexpr std::int64_t kCoords = 2, kClasses = 2;
    return SpiralsMlp{
        named::Tensor<Axes<Hidden, Coord>>(uniform_init({hidden, kCoords}, kCoords, seed, 0)),
        named::Tensor<Axes<Hidden>>(uniform_init({hidden}, kCoords, seed, 1)),
        named::Tensor<Axes<Hidden2, Hidden>>(uniform_init({hidden, hidden}, hidden, seed, 2)),
        named::Tensor<Axes<Hidden2>>(uniform_init({hidden}, hidden, seed, 3)),
        named::Tensor<Axes<Class, Hidden2>>(uniform_init({kClasses, hidden}, hidden, seed, 4)),
        named::Tensor<Axes<Class>>(uniform_init({kClasses}, hidden, seed, 5)),
    };
}

SpiralsMlp SpiralsMlp::from_flat(const Tensor& flat, const SpiralsMlp& like) {
    std::int64_t offset = 0;
    auto take = [&](const auto& shape_of) {
        const Shape shape = shape_of.untyped().shape();
        Tensor view = flat.narrow(0, offset, shape.product()).reshape(shape);
        offset += shape.product();
        return std::remove_cvref_t<decltype(shape_of)>(view);
    };
    SpiralsMlp m;
    m.w1 = take(like.w1);
    m.b1 = take(like.b1);
    m.w2 = take(like.w2);
    m.b2 = take(like.b2);
    m.w3 = take(like.w3);
    m.b3 = take(like.b3);
    return m;
}

named::Tensor<Axes<Sample, Class>> SpiralsMlp::logits(const named::Tensor<Axes<Sample, Coord>>& x) const {
    const auto h1 = named::tanh(named::dot<Coord>(x, w1) + b1);
    const auto h2 = named::tanh(named::dot<Hidden>(h1, w2) + b2);
    return named::dot<Hidden2>(h2, w3) + b3;
}

std::vector<Tensor> SpiralsMlp::parameters() const {
    return {w1.untyped(), b1.untyped(), w2.untyped(), b2.untyped(), w3.untyped(), b3.untyped()};
}

std::int64_t SpiralsMlp::parameter_count() const {
    std::int64_t n = 0;
    for (const Tensor& p : parameters()) n += p.numel();
    return n;
}

void SpiralsMlp::mark_trainable() {
    w1.requires_grad();
    b1.requires_grad();
    w2.requires_grad();
    b2.requires_grad();
    w3.requires_grad();
    b3.requires_grad();
}

}  // namespace forge::spirals
