#include "models/llm/lora/lora_runtime.h"

#include "core/checked_math.h"
#include "core/error.h"
#include "core/infer/row_ops.h"

#include <algorithm>

namespace forge::llm::lora {

LoraRuntime::LoraRuntime(const LoraStack* stack, std::int64_t max_rows, std::int64_t n_slots, std::int64_t max_width)
    : stack_(stack) {
    if (!active()) return;
    const std::size_t adapters = stack_->size();
    slot_scales_.resize(sz(n_slots) * adapters);
    for (std::int64_t s = 0; s < n_slots; ++s) set_slot_scales(s, stack_->default_scales());
    row_scales_.resize(sz(max_rows) * adapters);
    low_rank_.resize(sz(max_rows * stack_->max_rank()));
    delta_.resize(sz(max_rows * max_width));
}

void LoraRuntime::set_slot_scales(std::int64_t slot, std::span<const float> scales) {
    if (!active()) return;
    check(scales.size() == n_adapters(), "LoRA: {} scales given for {} adapters", scales.size(), n_adapters());
    check(slot >= 0 && sz(slot) * n_adapters() < slot_scales_.size(), "LoRA: no slot {}", slot);
    std::copy(scales.begin(), scales.end(), slot_scales_.begin() + static_cast<std::ptrdiff_t>(sz(slot) * n_adapters()));
}

std::span<const float> LoraRuntime::slot_scales(std::int64_t slot) const {
    if (!active()) return {};
    return std::span(slot_scales_).subspan(sz(slot) * n_adapters(), n_adapters());
}

void LoraRuntime::begin_batch(std::span<const infer::BatchRow> rows) {
    if (!active()) return;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::span<const float> scales = slot_scales(rows[i].slot);
        std::copy(scales.begin(), scales.end(), row_scales_.begin() + static_cast<std::ptrdiff_t>(i * n_adapters()));
    }
}

void LoraRuntime::apply(std::int64_t layer, Projection projection, std::span<const float> x, std::int64_t n,
                        std::span<float> y, infer::ActivationScratch& scratch) {
    if (!active()) return;
    for (const LowRankDelta& d : stack_->deltas(layer, projection)) {
        const auto scale_of_row = [&](std::int64_t i) {
            return d.alpha_over_rank * row_scales_[sz(i) * n_adapters() + d.adapter];
        };
        bool any = false;
        for (std::int64_t i = 0; i < n && !any; ++i) any = scale_of_row(i) != 0.0f;
        if (!any) continue;  // scale 0 everywhere: the base's bits, and no work
        const std::int64_t rank = d.a.n_out(), n_out = d.b.n_out();
        const auto low_rank = std::span(low_rank_).first(sz(n * rank));
        const auto delta = std::span(delta_).first(sz(n * n_out));
        infer::linear(d.a, x, n, low_rank, scratch);
        infer::linear(d.b, low_rank, n, delta, scratch);
        // As llama.cpp: the scale multiplies B (A x), which then joins the output.
        for (std::int64_t i = 0; i < n; ++i) {
            const float scale = scale_of_row(i);
            if (scale == 0.0f) continue;
            const auto row = delta.subspan(sz(i * n_out), sz(n_out));
            infer::multiply_rows(row, std::span(&scale, 1), row);
            infer::add_rows(y.subspan(sz(i * n_out), sz(n_out)), row);
        }
    }
}

}  // namespace forge::llm::lora
