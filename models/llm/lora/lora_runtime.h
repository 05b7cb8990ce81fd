// LoRA applied at run time inside one Forward: after a projection y = W x (W as stored,
// quantized or not), y += (alpha / r) * scale * B (A x) for each adapter of the stack, with
// each sequence's own scales (a KV cache slot's). Each row is computed on its own, as the base
// linear is, so a sequence's logits are the same bits batched or alone; an adapter whose scale
// is 0 for a row adds nothing to it, so scale 0 gives the base model's logits exactly.
#pragma once

#include "core/infer/batch.h"
#include "core/infer/linear.h"
#include "models/llm/lora/lora_stack.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::llm::lora {

class LoraRuntime {
public:
    // No stack (nullptr): apply() does nothing. Buffers for max_rows rows of up to max_width outputs.
    LoraRuntime(const LoraStack* stack, std::int64_t max_rows, std::int64_t n_slots, std::int64_t max_width);

    bool active() const { return stack_ != nullptr && stack_->size() > 0; }
    std::size_t n_adapters() const { return stack_ ? stack_->size() : 0; }
    // The scales of the sequence in `slot`, one per adapter (each slot starts at the stack's defaults).
    void set_slot_scales(std::int64_t slot, std::span<const float> scales);
    std::span<const float> slot_scales(std::int64_t slot) const;

    // Takes each row's scales from its slot; call once per batch, before apply().
    void begin_batch(std::span<const infer::BatchRow> rows);
    // y [n, n_out] += the adapters' deltas for `projection` of `layer` on x [n, n_in].
    void apply(std::int64_t layer, Projection projection, std::span<const float> x, std::int64_t n, std::span<float> y,
               infer::ActivationScratch& scratch);

private:
    const LoraStack* stack_;
    std::vector<float> slot_scales_;  // [n_slots, n_adapters]
    std::vector<float> row_scales_;   // [max_rows, n_adapters], this batch's
    std::vector<float> low_rank_;     // [max_rows, max_rank]: A x
    std::vector<float> delta_;        // [max_rows, max_width]: B (A x)
};

}  // namespace forge::llm::lora
