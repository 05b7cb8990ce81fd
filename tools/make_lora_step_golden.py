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
one torch.optim.AdamW step. The forward is llama.cpp's qwen3 graph, as the oracle kit's
ref_forward.py spells it out. Recorded in one safetensors file: "init.<factor>", "grad.<factor>",
"after.<factor>" (factor = blk.N.attn_q.weight.lora_a, ...), "tokens" and "targets" (i32), and
in the metadata the loss and the settings.

Run with Debian's python3-torch: /usr/bin/python3 tools/make_lora_step_golden.py
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_reader  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "test", "data", "llm")
MODEL = os.path.join(DATA, "qwen3-f32.gguf")
OUT = os.path.join(DATA, "lora_step.safetensors")

# The settings (keep in step with test/models/llm/lora_step_golden_test.cpp).
RANK, ALPHA, LR, WEIGHT_DECAY, SEQ = 4, 8.0, 1e-2, 0.01, 12
TARGETS = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"]


def write_safetensors(path, tensors, metadata):
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().numpy().tobytes()
        dtype = {torch.float32: "F32", torch.int32: "I32"}[t.dtype]
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def rmsnorm(x, w, eps):
    return x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps) * w


def rope_neox(x, base):  # x [T, H, d]: pairs (i, i + d/2), angle pos * base^(-2i/d)
    t, d = x.shape[0], x.shape[-1]
    inv = base ** (-torch.arange(0, d // 2, dtype=torch.float64) * 2.0 / d)
    ang = torch.arange(t, dtype=torch.float64)[:, None] * inv[None, :]
    c, s = torch.cos(ang)[:, None, :], torch.sin(ang)[:, None, :]
    x0, x1 = x[..., : d // 2], x[..., d // 2:]
    return torch.cat([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1)


def main():
    meta, weights = gguf_reader.read(MODEL)
    g = lambda key: meta[f"qwen3.{key}"]  # noqa: E731
    n_layer, n_head, n_kv = g("block_count"), g("attention.head_count"), g("attention.head_count_kv")
    hd, eps, base = g("attention.key_length"), g("attention.layer_norm_rms_epsilon"), g("rope.freq_base")
    W = {name: torch.tensor(w, dtype=torch.float64) for name, w in weights.items()}
    vocab = W["token_embd.weight"].shape[0]

    gen = torch.Generator().manual_seed(28)
    factors = {}
    for layer in range(n_layer):
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

    scale = ALPHA / RANK

    def linear(x, name):
        y = x @ W[name].T
        if name + ".lora_a" in factors:
            y = y + scale * ((x @ factors[name + ".lora_a"].T) @ factors[name + ".lora_b"].T)
        return y

    x = W["token_embd.weight"][tokens]
    t = SEQ
    causal = torch.triu(torch.full((t, t), float("-inf"), dtype=torch.float64), diagonal=1)
    for layer in range(n_layer):
        p = f"blk.{layer}."
        h = rmsnorm(x, W[p + "attn_norm.weight"], eps)
        q = linear(h, p + "attn_q.weight").reshape(t, n_head, hd)
        k = linear(h, p + "attn_k.weight").reshape(t, n_kv, hd)
        v = linear(h, p + "attn_v.weight").reshape(t, n_kv, hd)
        q = rope_neox(rmsnorm(q, W[p + "attn_q_norm.weight"], eps), base)
        k = rope_neox(rmsnorm(k, W[p + "attn_k_norm.weight"], eps), base)
        group = n_head // n_kv
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd) + causal
        att = torch.einsum("hts,shd->thd", torch.softmax(scores, dim=-1), v).reshape(t, n_head * hd)
        x = x + linear(att, p + "attn_output.weight")
        h = rmsnorm(x, W[p + "ffn_norm.weight"], eps)
        x = x + linear(torch.nn.functional.silu(linear(h, p + "ffn_gate.weight")) * linear(h, p + "ffn_up.weight"),
                       p + "ffn_down.weight")
    head = W.get("output.weight", W["token_embd.weight"])
    logits = rmsnorm(x, W["output_norm.weight"], eps) @ head.T
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
