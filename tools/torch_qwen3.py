"""qwen3's forward with LoRA factors on its matrices, in PyTorch, for the tools that measure
`forge train lora` (models/llm/lora/): make_lora_step_golden.py runs it in float64 (the golden of
one training step) and bench_lora_torch.py in float32 (the speed and memory comparison). Import it
from those scripts (same folder).

The graph is llama.cpp's, as the oracle kit's ref_forward.py spells it out: RMSNorm, per-head q/k
RMSNorm, NeoX RoPE, grouped-query causal attention, SwiGLU, the head tied to the embedding when
the file has no output.weight. Every adapted matrix computes

    y = W x + scale B (A x)      A [r, n_in], B [n_out, r], scale = alpha / r

It runs in the dtype of the weights it is given; the base weights W are plain tensors (frozen
unless the caller asks for their gradients), the factors are the caller's.

    cfg = torch_qwen3.Config(meta)                                       # a qwen3 GGUF's metadata
    logits = torch_qwen3.forward(cfg, weights, factors, alpha / rank, tokens)   # tokens [T] -> [T, vocab]
"""
import math

import torch

# The matrices of each block that LoRA can adapt (forge's --targets q,k,v,o,gate,up,down).
TARGETS = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"]


class Config:
    """The shape of a qwen3 model, from its GGUF metadata."""

    def __init__(self, meta):
        g = lambda key: meta[f"qwen3.{key}"]  # noqa: E731
        self.n_layer, self.n_head, self.n_kv = g("block_count"), g("attention.head_count"), g("attention.head_count_kv")
        self.head_dim = g("attention.key_length")
        self.eps, self.rope_base = g("attention.layer_norm_rms_epsilon"), g("rope.freq_base")


def rmsnorm(x, w, eps):
    return x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps) * w


def rope_neox(x, base):  # x [T, H, d]: pairs (i, i + d/2), angle pos * base^(-2i/d), in float64
    t, d = x.shape[0], x.shape[-1]
    inv = base ** (-torch.arange(0, d // 2, dtype=torch.float64) * 2.0 / d)
    ang = torch.arange(t, dtype=torch.float64)[:, None] * inv[None, :]
    c, s = torch.cos(ang)[:, None, :].to(x.dtype), torch.sin(ang)[:, None, :].to(x.dtype)
    x0, x1 = x[..., : d // 2], x[..., d // 2:]
    return torch.cat([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1)


def forward(cfg, W, factors, scale, tokens):
    """The logits [T, vocab] of one row of token ids; factors maps "<weight>.lora_a" / ".lora_b"
    to A and B for each adapted matrix (those without are the base alone)."""

    def linear(x, name):
        y = x @ W[name].T
        if name + ".lora_a" in factors:
            y = y + scale * ((x @ factors[name + ".lora_a"].T) @ factors[name + ".lora_b"].T)
        return y

    x = W["token_embd.weight"][tokens]
    t, hd, eps = tokens.shape[0], cfg.head_dim, cfg.eps
    causal = torch.triu(torch.full((t, t), float("-inf"), dtype=x.dtype), diagonal=1)
    for layer in range(cfg.n_layer):
        p = f"blk.{layer}."
        h = rmsnorm(x, W[p + "attn_norm.weight"], eps)
        q = linear(h, p + "attn_q.weight").reshape(t, cfg.n_head, hd)
        k = linear(h, p + "attn_k.weight").reshape(t, cfg.n_kv, hd)
        v = linear(h, p + "attn_v.weight").reshape(t, cfg.n_kv, hd)
        q = rope_neox(rmsnorm(q, W[p + "attn_q_norm.weight"], eps), cfg.rope_base)
        k = rope_neox(rmsnorm(k, W[p + "attn_k_norm.weight"], eps), cfg.rope_base)
        group = cfg.n_head // cfg.n_kv
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd) + causal
        att = torch.einsum("hts,shd->thd", torch.softmax(scores, dim=-1), v).reshape(t, cfg.n_head * hd)
        x = x + linear(att, p + "attn_output.weight")
        h = rmsnorm(x, W[p + "ffn_norm.weight"], eps)
        x = x + linear(torch.nn.functional.silu(linear(h, p + "ffn_gate.weight")) * linear(h, p + "ffn_up.weight"),
                       p + "ffn_down.weight")
    head = W.get("output.weight", W["token_embd.weight"])
    return rmsnorm(x, W["output_norm.weight"], eps) @ head.T
