"""forge's GPT (models/gpt: nanochat's recipe in qwen3's shape) and its optimizer step in
PyTorch float32, for the training-step golden (make_gpt_step_golden.py) and the throughput
comparison (bench_train_torch.py). Import it from those scripts (same folder).

Muon is a float32 transcription of Keller Jordan's reference (github.com/KellerJordan/Muon):
Nesterov momentum by lerp, the quintic Newton-Schulz iteration, a sqrt(max(1, rows/cols))
scale. The embedding and head use torch.optim.AdamW with nanochat's betas and eps.
"""
import math

import torch
import torch.nn.functional as F

EPS = 1e-6
ROPE_BASE = 10000.0


class Config:
    def __init__(self, depth, vocab, head_dim=None):
        self.depth, self.vocab = depth, vocab
        self.width = 64 * depth
        self.head_dim = head_dim or (128 if self.width % 128 == 0 else 64)
        self.n_head = self.width // self.head_dim
        self.ff = ((8 * self.width + 2) // 3 + 63) // 64 * 64

    def shapes(self):
        out = {"token_embd.weight": (self.vocab, self.width)}
        w, f = self.width, self.ff
        for i in range(self.depth):
            for name, shape in (("attn_q", (w, w)), ("attn_k", (w, w)), ("attn_v", (w, w)), ("attn_output", (w, w)),
                                ("ffn_gate", (f, w)), ("ffn_up", (f, w)), ("ffn_down", (w, f))):
                out[f"blk.{i}.{name}.weight"] = shape
        out["output.weight"] = (self.vocab, self.width)
        return out


def rmsnorm(x):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + EPS)


def rope_neox(x):  # [B, T, H, hd]
    _, t, _, hd = x.shape
    half = hd // 2
    inv = ROPE_BASE ** (-torch.arange(half, dtype=torch.float64) * 2 / hd)
    angles = (torch.arange(t, dtype=torch.float64)[:, None] * inv[None, :]).float()
    cos, sin = angles.cos()[None, :, None, :], angles.sin()[None, :, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


def forward(cfg, p, ids):
    b, t = ids.shape
    hd, heads = cfg.head_dim, cfg.n_head
    x = rmsnorm(p["token_embd.weight"][ids])
    mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
    for i in range(cfg.depth):
        def w(name):
            return p[f"blk.{i}.{name}.weight"]
        h = rmsnorm(x)
        q = rmsnorm(F.linear(h, w("attn_q")).view(b, t, heads, hd))
        k = rmsnorm(F.linear(h, w("attn_k")).view(b, t, heads, hd))
        v = F.linear(h, w("attn_v")).view(b, t, heads, hd)
        q, k, v = rope_neox(q).transpose(1, 2), rope_neox(k).transpose(1, 2), v.transpose(1, 2)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        attn = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        x = x + F.linear((attn @ v).transpose(1, 2).reshape(b, t, cfg.width), w("attn_output"))
        h = rmsnorm(x)
        x = x + F.linear(F.silu(F.linear(h, w("ffn_gate"))) * F.linear(h, w("ffn_up")), w("ffn_down"))
    return F.linear(rmsnorm(x), p["output.weight"])


def newton_schulz(g, steps=5):
    a, b, c = 3.4445, -4.7750, 2.0315
    tall = g.size(0) > g.size(1)
    x = g.T if tall else g
    x = x / (x.norm() + 1e-7)
    for _ in range(steps):
        A = x @ x.T
        B = b * A + c * A @ A
        x = a * x + B @ x
    return x.T if tall else x


class Optimizer:
    """models/gpt/gpt_optimizer.cpp at a learning-rate multiplier of 1."""

    def __init__(self, cfg, params, batch_tokens, matrix_lr=0.02, embedding_lr=0.2, unembedding_lr=0.004, clip=1.0):
        batch_scale = math.sqrt(batch_tokens / 2 ** 19)
        width_scale = (cfg.width / 768) ** -0.5
        self.params, self.clip = params, clip
        self.matrices = [p for n, p in params.items() if n.startswith("blk.")]
        self.momentum = [torch.zeros_like(p) for p in self.matrices]
        self.matrix_lr = matrix_lr * batch_scale
        self.adams = [torch.optim.AdamW([params[name]], lr=lr * batch_scale * width_scale, betas=(0.8, 0.95),
                                        eps=1e-10, weight_decay=0.0)
                      for name, lr in (("token_embd.weight", embedding_lr), ("output.weight", unembedding_lr))]

    def step(self, step):
        """Clips, updates; returns the gradient norm before clipping."""
        norm = torch.nn.utils.clip_grad_norm_(list(self.params.values()), self.clip)
        frac = min(step / 300, 1)
        beta = (1 - frac) * 0.85 + frac * 0.95
        with torch.no_grad():
            for p, m in zip(self.matrices, self.momentum):
                m.lerp_(p.grad, 1 - beta)
                direction = p.grad.lerp(m, beta)
                update = newton_schulz(direction) * max(1.0, p.size(0) / p.size(1)) ** 0.5
                p.add_(update, alpha=-self.matrix_lr)
        for adam in self.adams:
            adam.step()
        return float(norm)
