#!/usr/bin/python3
"""Write the LoRA training-step golden for forge's tests (test/data/llm/lora_step.safetensors).

One step of `forge train lora` (models/llm/lora/) written out in PyTorch, in float64 so that
the golden is the exact math and forge's float32 is measured against it: the small qwen3 model
test/data/llm/qwen3-f32.gguf (random weights, per-head q/k norms, NeoX RoPE, grouped-query
attention) with its weights frozen, LoRA factors on all seven matrices of every block,

    y = W x + (alpha / r) B (A x)      A [r, n_in], B [n_out, r]

(both factors random here, B too, so that every gradient is non-zero), a row of token ids whose
targets are partly masked (-100: the prompt tokens SFT does not count), the mean cross-entropy
over the counted targets, its gradients with respect to every A and B, and the factors after
one torch.optim.AdamW step. The forward is torch_qwen3.py (llama.cpp's qwen3 graph, as the
oracle kit's ref_forward.py spells it out; bench_lora_torch.py times the same code). Recorded in one safetensors file: "init.<factor>", "grad.<factor>",
"after.<factor>" (factor = blk.N.attn_q.weight.lora_a, ...), "tokens" and "targets" (i32), and
in the metadata the loss and the settings.

Run with Debian's python3-torch: /usr/bin/python3 tools/make_lora_step_golden.py
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_reader  # noqa: E402
import torch_qwen3  # noqa: E402  (the forward, shared with bench_lora_torch.py)
from torch_safetensors import write_safetensors  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "test", "data", "llm")
MODEL = os.path.join(DATA, "qwen3-f32.gguf")
OUT = os.path.join(DATA, "lora_step.safetensors")

# The settings (keep in step with test/models/llm/lora_step_golden_test.cpp).
RANK, ALPHA, LR, WEIGHT_DECAY, SEQ = 4, 8.0, 1e-2, 0.01, 12
TARGETS = torch_qwen3.TARGETS


def main():
    meta, weights = gguf_reader.read(MODEL)
    cfg = torch_qwen3.Config(meta)
    W = {name: torch.tensor(w, dtype=torch.float64) for name, w in weights.items()}
    vocab = W["token_embd.weight"].shape[0]

    gen = torch.Generator().manual_seed(28)
    factors = {}
    for layer in range(cfg.n_layer):
        for target in TARGETS:
            name = f"blk.{layer}.{target}.weight"
            n_out, n_in = W[name].shape
            bound = 1.0 / math.sqrt(n_in)
            a = (torch.rand(RANK, n_in, generator=gen, dtype=torch.float64) * 2 - 1) * bound
            b = torch.randn(n_out, RANK, generator=gen, dtype=torch.float64) * 0.05
            # The golden's factors are float32 values, so that forge starts from the same numbers.
            factors[name + ".lora_a"] = a.float().double().requires_grad_(True)
            factors[name + ".lora_b"] = b.float().double().requires_grad_(True)
    tokens = torch.randint(0, vocab, (SEQ,), generator=gen)
    targets = torch.randint(0, vocab, (SEQ,), generator=gen)
    targets[:4] = -100  # a prompt: not counted
    targets[7] = -100

    logits = torch_qwen3.forward(cfg, W, factors, ALPHA / RANK, tokens)
    loss = torch.nn.functional.cross_entropy(logits, targets, ignore_index=-100)
    loss.backward()

    out = {"tokens": tokens.to(torch.int32), "targets": targets.to(torch.int32)}
    for name, f in factors.items():
        out["init." + name] = f.detach().float()
        out["grad." + name] = f.grad.float()
    params = list(factors.values())
    torch.optim.AdamW(params, lr=LR, weight_decay=WEIGHT_DECAY).step()
    for name, f in factors.items():
        out["after." + name] = f.detach().float()
    write_safetensors(OUT, out, {"loss": repr(loss.item()), "rank": str(RANK), "alpha": repr(ALPHA), "lr": repr(LR),
                                 "weight_decay": repr(WEIGHT_DECAY)})
    print(f"wrote {OUT}: loss {loss.item():.6f}, {len(factors)} factors")


if __name__ == "__main__":
    main()
